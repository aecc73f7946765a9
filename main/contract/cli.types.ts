/** The desk command line (`desk`): how it reaches the core, and the secrets its cli-only channels take. */

/**
 * A secret for a cli-only channel: a file the main process reads itself (the usual case), or the
 * value typed at the desk's hidden TTY prompt. Never logged, never echoed back.
 */
export type CliSecret = { file: string } | { value: string }

/** How `desk` reaches the core: attached to a running app (pid) or the core in its own process. */
export interface CliMode {
  mode: 'attached' | 'standalone'
  pid: number
}
