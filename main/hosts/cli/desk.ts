/** `desk`: the command-line host over the core (no Electron). */
import { discoverGroups } from './discover'
import { processIo } from './io'
import { runCli } from './router'

const code = await runCli(process.argv.slice(2), await discoverGroups(), processIo())
process.exitCode = code
