/**
 * `npm run web`: the loopback web host over the same core and handler table as Electron.
 * For end-to-end tests and development only; never part of the packaged app.
 */
import { existsSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { createDeskCore } from '../../core/app/compose'
import { headlessHostServices } from '../../core/features/host'
import { sandboxPorts } from '../dev'
import { defaultDataDir } from '../../core/config/paths'
import { parseWebArgs, WEB_USAGE, WebUsageError, type WebArgs } from './args'
import { acquireDataDirLock, startAttachServer } from '../attach'
import { startWebHost } from './server'

const root = fileURLToPath(new URL('../../..', import.meta.url))
let args: WebArgs
try {
  args = parseWebArgs(process.argv.slice(2))
} catch (e) {
  if (!(e instanceof WebUsageError)) throw e
  process.stderr.write(`error: ${e.message}\n\n${WEB_USAGE}`)
  process.exit(2)
}
if (args.help) {
  process.stdout.write(WEB_USAGE)
  process.exit(0)
}

const rendererRoot = join(root, 'out/renderer-web')
if (!existsSync(join(rendererRoot, 'index.html'))) {
  process.stderr.write('error: out/renderer-web is missing; run `npm run build` first (npm run web does it).\n')
  process.exit(1)
}

const dataDir = args.dataDir ?? defaultDataDir()
// One writer per data directory: refuse to start beside another host or a standalone `desk`.
let lock: ReturnType<typeof acquireDataDirLock>
try {
  lock = acquireDataDirLock(dataDir, 'web')
} catch (e) {
  process.stderr.write(`error: ${e instanceof Error ? e.message : String(e)}\n`)
  process.exit(1)
}
const core = await createDeskCore({
  dataDir,
  ...sandboxPorts(dataDir),
  host: 'web',
  version: process.env.npm_package_version ?? '0.0.0',
  services: headlessHostServices,
})
const deskSocket = await startAttachServer({ core, dataDir, version: process.env.npm_package_version ?? '0.0.0' })
const web = await startWebHost({ core, rendererRoot, host: args.host, port: args.port })
process.stdout.write(
  'Treasury Desk web host (loopback only)\n' +
    `Data directory: ${dataDir} (--data-dir DIR for another; \`desk --data-dir DIR\` reaches this one)\n` +
    `Open: ${web.url}\n`,
)

let stopping = false
const stop = async () => {
  if (stopping) return
  stopping = true
  await web.close()
  await deskSocket.close()
  await core.close()
  lock.release()
  process.exit(0)
}
process.on('SIGINT', () => void stop())
process.on('SIGTERM', () => void stop())
