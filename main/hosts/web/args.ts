import { parseArgs } from 'node:util'

export const WEB_USAGE = `Usage: npm run web -- [options]

Serves the desk's renderer and its contract on a loopback-only web host (development and
browser tests; never part of the packaged app). Prints the URL to open, with a per-launch token.

Options:
  --data-dir DIR   data directory (default: the desktop app's)
  --port N         port to listen on, 0-65535 (default: any free port)
  --host HOST      127.0.0.1, ::1 or localhost (default: 127.0.0.1)
  -h, --help       show this help
`

export type WebArgs = { help: true } | { help: false; dataDir: string | undefined; port: number; host: string }

/** The web host's command line; a bad option or value is a usage error, never a stack trace. */
export function parseWebArgs(argv: string[]): WebArgs {
  let values: { 'data-dir'?: string; port?: string; host?: string; help?: boolean }
  try {
    values = parseArgs({
      args: argv,
      options: {
        'data-dir': { type: 'string' },
        port: { type: 'string' },
        host: { type: 'string' },
        help: { type: 'boolean', short: 'h' },
      },
      allowPositionals: false,
    }).values
  } catch (e) {
    throw new WebUsageError((e as Error).message)
  }
  if (values.help) return { help: true }
  const port = values.port === undefined ? 0 : Number(values.port)
  if (!/^[0-9]{1,5}$/.test(values.port ?? '0') || port > 65535)
    throw new WebUsageError(`--port must be an integer 0-65535, not "${values.port}"`)
  return { help: false, dataDir: values['data-dir'], port, host: values.host ?? '127.0.0.1' }
}

export class WebUsageError extends Error {}
