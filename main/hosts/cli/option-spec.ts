/** A command option as declared for the router (parsing, help) and for the global options (context). */
export type OptionSpec = { type: 'string' | 'boolean'; description: string; valueName?: string }
