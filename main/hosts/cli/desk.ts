/** `desk`: the command-line host over the core (no Electron). */
import { discoverGroups } from './discover'
import { processIo } from './io'
import { runCli } from './router'

// The desk's stderr carries its own one-line errors and prompts; the in-process core's
// diagnostics (channel name and error code) only with DESK_DEBUG=1.
if (!process.env.DESK_DEBUG) console.warn = () => {}

const code = await runCli(process.argv.slice(2), await discoverGroups(), processIo())
process.exitCode = code
