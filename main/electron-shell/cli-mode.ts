/**
 * `<app> --desk-cli ARGS`: the packaged `desk` launcher's way in (resources/cli). The entry hands
 * over Electron's pieces; this runs the bundled CLI on the app's own runtime and ends the process
 * with the CLI's exit code once its output has drained. Pure over its inputs (testable without
 * Electron).
 */
import { pathToFileURL } from 'node:url'

export const DESK_CLI_FLAG = '--desk-cli'

/** The argv the CLI expects (`node desk ARGS`), or null when the app was not started as `desk`. */
export function deskCliArgv(argv: readonly string[]): string[] | null {
  const at = argv.indexOf(DESK_CLI_FLAG)
  return at < 0 ? null : [argv[0] ?? 'desk', 'desk', ...argv.slice(at + 1)]
}

/** Resolves once everything written to the stream so far has been handed to the OS (a pipe may lag). */
export function flushed(stream: Pick<NodeJS.WriteStream, 'write' | 'destroyed'>): Promise<void> {
  return new Promise((resolve) => (stream.destroyed ? resolve() : stream.write('', () => resolve())))
}

export interface DeskCliRun {
  /** Path of the CLI bundle (out/cli/desk.mjs inside app.asar). */
  bundle: string
  /** Imports a module by URL (the entry passes `(u) => import(u)`). */
  importModule(url: string): Promise<unknown>
  stdout: Pick<NodeJS.WriteStream, 'write' | 'destroyed'>
  stderr: Pick<NodeJS.WriteStream, 'write' | 'destroyed'>
  /** The CLI's exit code, as it set it (process.exitCode). */
  exitCode(): number | string | undefined
  /** Ends the app at once (app.exit). */
  exit(code: number): void
}

/**
 * Imports the bundle (by file URL: an ESM import of a "C:\\…" path fails on Windows), which runs
 * the CLI to completion, then waits for stdout and stderr to drain before ending the app:
 * app.exit ends the process at once and would cut the tail of piped output.
 */
export async function runDeskCli(o: DeskCliRun): Promise<void> {
  let code: number
  try {
    await o.importModule(pathToFileURL(o.bundle).href)
    const c = o.exitCode()
    code = typeof c === 'number' ? c : c === undefined ? 0 : Number(c) || 1
  } catch (e) {
    o.stderr.write(`desk: ${e instanceof Error ? e.message : String(e)}\n`)
    code = 1
  }
  await Promise.all([flushed(o.stdout), flushed(o.stderr)])
  o.exit(code)
}
