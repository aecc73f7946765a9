/**
 * Crash-safe replacement of a small file: write a temp file in the same directory, fsync it,
 * refresh the `.bak` copy of the current version (itself via temp + rename), rename the temp file
 * over the target, fsync the directory. At every instant the target path holds either the
 * complete old or the complete new content.
 */
import { randomBytes } from 'node:crypto'
import { promises as fs } from 'node:fs'
import { basename, dirname, join } from 'node:path'

export interface AtomicWriteHooks {
  /** Test hook: runs after the temp file is durable and before the rename (a crash here must leave the old file). */
  beforeRename?: (tempPath: string) => void | Promise<void>
}

export interface AtomicWriteOptions {
  mode?: number
  /** Keep the replaced version as `<path>.bak`. */
  backup?: boolean
  hooks?: AtomicWriteHooks
}

export const TEMP_MARKER = '.tmp-'

async function fsyncDir(dir: string): Promise<void> {
  // Directories cannot be opened for fsync on Windows; NTFS journals the rename itself.
  if (process.platform === 'win32') return
  const fh = await fs.open(dir, 'r')
  try {
    await fh.sync()
  } finally {
    await fh.close()
  }
}

async function writeDurable(path: string, data: string | Uint8Array, mode: number): Promise<void> {
  const fh = await fs.open(path, 'wx', mode)
  try {
    await fh.writeFile(data)
    await fh.sync()
  } finally {
    await fh.close()
  }
  // The umask may have narrowed or (on odd systems) widened the mode at creation.
  await fs.chmod(path, mode)
}

function tempPathFor(path: string): string {
  return join(dirname(path), `${basename(path)}${TEMP_MARKER}${process.pid}-${randomBytes(6).toString('hex')}`)
}

export async function writeFileAtomic(path: string, data: string | Uint8Array, options: AtomicWriteOptions = {}): Promise<void> {
  const mode = options.mode ?? 0o600
  const dir = dirname(path)
  const temp = tempPathFor(path)
  try {
    await writeDurable(temp, data, mode)
    if (options.backup) {
      let previous: Buffer | null = null
      try {
        previous = await fs.readFile(path)
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e
      }
      if (previous) {
        const bakTemp = tempPathFor(`${path}.bak`)
        await writeDurable(bakTemp, previous, mode)
        await fs.rename(bakTemp, `${path}.bak`)
      }
    }
    await options.hooks?.beforeRename?.(temp)
    await fs.rename(temp, path)
  } catch (e) {
    await fs.rm(temp, { force: true }).catch(() => undefined)
    throw e
  }
  await fsyncDir(dir)
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0)
    return true
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM'
  }
}

/** Removes temp files a crash left behind next to `path` (never the target or its backup). */
export async function removeStaleTemps(path: string): Promise<string[]> {
  const dir = dirname(path)
  const prefixes = [`${basename(path)}${TEMP_MARKER}`, `${basename(path)}.bak${TEMP_MARKER}`]
  let names: string[]
  try {
    names = await fs.readdir(dir)
  } catch {
    return []
  }
  const stale = names.filter((n) => {
    const prefix = prefixes.find((p) => n.startsWith(p))
    if (prefix === undefined) return false
    // Another live process (the desktop app while `desk` runs) may be mid-write: leave its file.
    const pid = Number(n.slice(prefix.length).split('-')[0])
    return !(Number.isSafeInteger(pid) && pid !== process.pid && isAlive(pid))
  })
  await Promise.all(stale.map((n) => fs.rm(join(dir, n), { force: true })))
  return stale
}
