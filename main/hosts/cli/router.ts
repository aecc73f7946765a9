/**
 * The `desk` command router. Command groups live in `commands/<group>.ts`, each default-exporting
 * a CommandGroup; the router discovers them, so adding a group touches no shared file.
 *   desk [global options] <group> <command> [positionals] [options]
 */
import { parseArgs } from 'node:util'
import { DeskError, isDeskError } from '../../contract/errors'
import type { CliIo } from './io'
import { EXIT_PROPOSED, CliContext, GLOBAL_OPTIONS, type GlobalOptions } from './context'
import type { OptionSpec } from './option-spec'
import { deskVersion } from './version'

const globalsJson = (argv: readonly string[]) => argv.includes('--json')

export type { OptionSpec }

export interface Command {
  name: string
  summary: string
  /** Positional argument names, e.g. ['ADDRESS', 'FILE']; a trailing '?' marks an optional one. */
  positionals?: string[]
  options?: Record<string, OptionSpec>
  run(ctx: CliContext): Promise<void>
}

export interface CommandGroup {
  name: string
  summary: string
  commands: Command[]
  /** The command run when only the group is named (`desk status`). */
  defaultCommand?: string
}

/** A group known by name and summary, its module loaded only when the group is used. */
export interface LazyGroup {
  name: string
  summary: string
  load(): Promise<CommandGroup>
}

export type GroupRef = CommandGroup | LazyGroup

const loadGroup = async (g: GroupRef): Promise<CommandGroup> => ('load' in g ? g.load() : g)

export class UsageError extends DeskError {
  constructor(message: string) {
    super('Usage', message)
  }
}

function optionHelp(options: Record<string, OptionSpec>): string[] {
  return columns(
    Object.entries(options).map(([name, o]) => [`  --${name}${o.type === 'string' ? ` ${o.valueName ?? 'VALUE'}` : ''}`, o.description]),
  )
}

/** Two aligned columns; a first column longer than the gutter puts its text on the next line, never run together. */
export function columns(rows: [string, string][], width = 34): string[] {
  return rows.flatMap(([left, right]) => (left.length < width - 1 ? [left.padEnd(width) + right] : [left, ' '.repeat(width) + right]))
}

export function usage(groups: readonly GroupRef[], group?: CommandGroup): string {
  if (group) {
    const lines = [`usage: desk ${group.name} <command> [options]`, '', group.summary, '', 'commands:']
    for (const c of group.commands) {
      lines.push(...columns([[`  ${`${c.name} ${(c.positionals ?? []).join(' ')}`.trim()}`, c.summary]]))
      if (c.options) lines.push(...optionHelp(c.options).map((l) => `    ${l}`))
    }
    lines.push('', 'global options:', ...optionHelp(GLOBAL_OPTIONS))
    return lines.join('\n')
  }
  return [
    'usage: desk <group> <command> [options]   (desk <group> --help for its commands; desk --version)',
    '',
    'groups:',
    ...groups.map((g) => `  ${g.name.padEnd(16)}${g.summary}`),
    '',
    'global options:',
    ...optionHelp(GLOBAL_OPTIONS),
  ].join('\n')
}

function toParseArgsOptions(specs: Record<string, OptionSpec>) {
  return Object.fromEntries(Object.entries(specs).map(([k, v]) => [k, { type: v.type }])) as Record<string, { type: 'string' | 'boolean' }>
}

/** Runs one invocation; returns the process exit code (0 ok, 1 failed, 2 usage). */
export async function runCli(argv: string[], groups: readonly GroupRef[], io: CliIo): Promise<number> {
  let ctx: CliContext | null = null
  try {
    const lenient = parseArgs({ args: argv, options: toParseArgsOptions(GLOBAL_OPTIONS), strict: false, allowPositionals: true })
    const [groupName, commandName] = lenient.positionals
    const wantsHelp = argv.includes('--help') || argv.includes('-h')
    if (!groupName && (argv.includes('--version') || argv.includes('-V'))) {
      io.stdout(globalsJson(argv) ? JSON.stringify({ version: deskVersion() }) + '\n' : `desk ${deskVersion()}\n`)
      return 0
    }
    if (!groupName || groupName === 'help') {
      if (!groupName && !wantsHelp) {
        io.stderr(usage(groups) + '\n')
        return 2
      }
      io.stdout(usage(groups) + '\n')
      return 0
    }
    const ref = groups.find((g) => g.name === groupName)
    if (!ref) throw new UsageError(`unknown command group "${groupName}" (known: ${groups.map((g) => g.name).join(', ')})`)
    const group = await loadGroup(ref)
    // The lenient parse cannot tell a command option's value from a command name: a word that is
    // not one of the group's commands goes to the default command, whose strict parse sorts it out.
    const implicit = !wantsHelp && group.defaultCommand !== undefined && !group.commands.some((c) => c.name === commandName)
    if ((!commandName && !implicit) || wantsHelp) {
      if (!commandName && !wantsHelp) throw new UsageError(`missing command; run "desk ${group.name} --help"`)
      io.stdout(usage(groups, group) + '\n')
      return 0
    }
    const name = implicit ? group.defaultCommand : commandName
    const command = group.commands.find((c) => c.name === name)
    if (!command) throw new UsageError(`unknown command "${group.name} ${commandName}"; run "desk ${group.name} --help"`)

    const specs = { ...GLOBAL_OPTIONS, ...(command.options ?? {}) }
    let parsed: ReturnType<typeof parseArgs>
    try {
      parsed = parseArgs({ args: argv, options: toParseArgsOptions(specs), strict: true, allowPositionals: true })
    } catch (e) {
      throw new UsageError(`${(e as Error).message.split('\n')[0]} (desk ${group.name} --help)`)
    }
    const positionals = parsed.positionals.slice(implicit ? 1 : 2)
    const names = command.positionals ?? []
    const required = names.filter((n) => !n.endsWith('?')).length
    if (positionals.length < required || positionals.length > names.length) {
      throw new UsageError(`usage: desk ${group.name} ${command.name} ${names.join(' ')}`.trim())
    }
    const values = parsed.values as Record<string, string | boolean | undefined>
    const globals: GlobalOptions = {
      dataDir: typeof values['data-dir'] === 'string' ? values['data-dir'] : undefined,
      json: values.json === true,
      passphraseFile: typeof values['passphrase-file'] === 'string' ? values['passphrase-file'] : undefined,
      yes: values.yes === true,
    }
    ctx = new CliContext(io, globals, values, positionals)
    await resolveAccountLabels(ctx, names, command.options ?? {})
    await command.run(ctx)
    await ctx.close()
    return ctx.exitCode
  } catch (e) {
    // Always detach or close the in-process core (journal drained, lock released), even on failure.
    await ctx?.close().catch(() => {})
    const data = isDeskError(e) ? e.toData() : { code: 'Internal', message: e instanceof Error ? e.message : String(e) }
    // One line on stderr; the message never contains key material or a passphrase.
    io.stderr(`desk: ${data.message.replace(/\s*\n\s*/g, ' ')} [${data.code}]\n`)
    // With --json the refusal is also one JSON document on stdout, code first (scripts branch on it).
    if (argv.includes('--json'))
      io.stdout(
        JSON.stringify({ error: { code: data.code, message: data.message, ...(data.details ? { details: data.details } : {}) } }) + '\n',
      )
    // A write that became a team proposal (an operation answering with its own view stops there, typed): exit 5, its id said.
    if (data.code === 'WriteProposed') {
      const id = (data.details as { proposalId?: unknown } | undefined)?.proposalId
      if (typeof id === 'string') io.stderr(`desk: team proposal ${id} waits for approvals (desk team show ${id})\n`)
      return EXIT_PROPOSED
    }
    return data.code === 'Usage' ? 2 : 1
  }
}

/** Positionals that name one of the operator's accounts: an address, or the account's label. */
const ACCOUNT_POSITIONAL = /^(ACCOUNT|MORE_ACCOUNTS|FROM|TO|TARGET|OWNER|CREDIT_ACCOUNT|CASH_ACCOUNT|PAYING_ACCOUNT)\??$/
const HEX_ADDRESS = /^0x[0-9a-fA-F]{40}$/

/** Options that name accounts: `--account X`, and `--address X[,Y…]` (a comma list). */
const ACCOUNT_OPTIONS: Record<string, 'one' | 'list'> = { account: 'one', address: 'list' }

/**
 * Replaces account labels ("Treasury main", case-insensitive) by their address, in account
 * positionals and account options; an unknown or ambiguous label is a typed error. The core is
 * asked for the account list only when a label was given.
 */
async function resolveAccountLabels(ctx: CliContext, names: readonly string[], options: Record<string, OptionSpec>): Promise<void> {
  const at = names.flatMap((n, i) =>
    ACCOUNT_POSITIONAL.test(n) && ctx.positionals[i] !== undefined && !HEX_ADDRESS.test(ctx.positionals[i]!.trim()) ? [i] : [],
  )
  const opts = Object.keys(ACCOUNT_OPTIONS).filter((o) => o in options && typeof ctx.options[o] === 'string')
  const split = (o: string) => (ACCOUNT_OPTIONS[o] === 'list' ? (ctx.options[o] as string).split(',') : [ctx.options[o] as string])
  if (at.length === 0 && !opts.some((o) => split(o).some((x) => !HEX_ADDRESS.test(x.trim())))) return
  const accounts = (await ctx.call('accounts.list', undefined)) as { address: string; label: string }[]
  const resolve = (given: string): string => {
    if (HEX_ADDRESS.test(given.trim())) return given.trim()
    const wanted = given.trim().toLowerCase()
    const found = accounts.filter((a) => a.label.trim().toLowerCase() === wanted)
    // "A,B" (orders list takes comma lists) when no label is literally that.
    if (found.length === 0 && given.includes(',')) return given.split(',').map(resolve).join(',')
    if (found.length === 0)
      throw new DeskError(
        'UnknownAccount',
        `no account is labelled "${given}" (give its 0x address or one of: ${accounts.map((a) => a.label || a.address).join(', ')})`,
      )
    if (found.length > 1) throw new DeskError('AmbiguousAccount', `${found.length} accounts are labelled "${given}": give the address`)
    return found[0]!.address
  }
  for (const i of at) ctx.positionals[i] = resolve(ctx.positionals[i]!)
  for (const o of opts) ctx.options[o] = split(o).map(resolve).join(',')
}
