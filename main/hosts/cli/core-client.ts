/**
 * How `desk` reaches the core. When the desktop app or the web host runs on the data directory,
 * desk attaches to it over its socket and every command runs through that process's core (one
 * journal writer, one reconciler, one rate budget). Otherwise desk runs the core in-process and
 * holds the data directory's lock for as long as it runs, so a second writer can never exist.
 */
/*
 * This file is the desk host's composition root, as the Electron entry and the web host have one:
 * the ONE file of main/hosts/cli that imports the core (and hosts/attach). Every other file of
 * the CLI imports only main/contract and its own folder (eslint.config.js, the hosts/cli block).
 * Besides the core itself it hands the CLI the few host-side facts a command needs from Node
 * code the core owns: the default data directory, the one secret-file reader, the vault's
 * default scrypt cost.
 */
import type { CliMode, Result } from '../../contract/types'
import { DeskError, isDeskError } from '../../contract/errors'
import { acquireDataDirLock, attachEndpoint, connectAttach } from '../attach'
import { deskVersion } from './version'

export { defaultDataDir } from '../../core/config/paths'
export { readSecretFile } from '../../core/vault/secret-file'

/** The vault's default scrypt cost (N = 2^18, r = 8, p = 1); loaded only when a keys command needs it. */
export async function defaultScrypt(): Promise<{ n: number; r: number; p: number }> {
  return { ...(await import('../../core/vault/kdf')).DEFAULT_SCRYPT }
}

export interface CoreClient {
  readonly mode: CliMode
  /** The version of the core's process: the attached app's, or this desk's own in-process. */
  readonly version: string
  dispatch(channel: string, args: unknown): Promise<Result<unknown>>
  onEvent(fn: (event: string, payload: unknown) => void): () => void
  close(): Promise<void>
}

async function tryAttach(dataDir: string): Promise<CoreClient | null> {
  try {
    const c = await connectAttach(attachEndpoint(dataDir))
    return {
      mode: { mode: 'attached', pid: c.pid },
      version: c.version,
      dispatch: (ch, a) => c.dispatch(ch, a),
      onEvent: (fn) => c.onEvent(fn),
      close: () => c.close(),
    }
  } catch (e) {
    if (isDeskError(e) && e.code === 'AttachFailed') return null
    throw e
  }
}

/** The core in this process, under the data directory's lock (no sandbox starter: configured URLs only). */
async function standalone(dataDir: string): Promise<CoreClient> {
  const lock = acquireDataDirLock(dataDir, 'desk')
  try {
    // Loaded only when a command runs standalone: `desk --help` never evaluates the core.
    const [{ createDeskCore }, { headlessHostServices }, { demoAccounts }] = await Promise.all([
      import('../../core/app/compose'),
      import('../../core/features/host'),
      // The public sandbox keys, for `desk keys add-sandbox-accounts` (sandbox network only), as the first-run screen offers them.
      import('../dev/demo-accounts'),
    ])
    const core = await createDeskCore({
      dataDir,
      host: 'cli',
      version: deskVersion(),
      services: headlessHostServices,
      demoAccounts,
      stream: false,
      overviewRefreshMs: 0,
    })
    return {
      mode: { mode: 'standalone', pid: process.pid },
      version: deskVersion(),
      dispatch: (ch, a) => core.dispatch(ch, a, { host: 'cli' }),
      onEvent: (fn) => core.events.subscribe((event, payload) => fn(event, payload)),
      close: async () => {
        try {
          await core.close()
        } finally {
          lock.release()
        }
      },
    }
  } catch (e) {
    lock.release()
    throw e
  }
}

export async function openCoreClient(dataDir: string): Promise<CoreClient> {
  const attached = await tryAttach(dataDir)
  if (attached) return attached
  try {
    return await standalone(dataDir)
  } catch (e) {
    // The app may have taken the lock and opened its socket in between: attach after all.
    if (isDeskError(e) && e.code === 'DataDirBusy') {
      const late = await tryAttach(dataDir)
      if (late) return late
      throw new DeskError('DataDirBusy', `${e.message}, and it serves no desk socket; close it or wait for it to finish`, e.details)
    }
    throw e
  }
}
