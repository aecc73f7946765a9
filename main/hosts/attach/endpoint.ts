/**
 * Where a data directory's core listens for `desk`: `<dataDir>/desk.sock` (a Unix socket only
 * the same OS user can open), a short path under the temp dir when that is too long for
 * sun_path, or a named pipe derived from the data directory on Windows.
 */
import { createHash } from 'node:crypto'
import { chmodSync, lstatSync, mkdirSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { DeskError } from '../../core/errors/desk-error'

/** sun_path is 108 bytes on Linux (104 on macOS) including the terminating NUL. */
const MAX_SUN_PATH = 100

function dirHash(dataDir: string): string {
  return createHash('sha256').update(resolve(dataDir)).digest('hex').slice(0, 24)
}

export function attachEndpoint(dataDir: string, platform: NodeJS.Platform = process.platform): string {
  if (platform === 'win32') return `\\\\.\\pipe\\treasury-desk-${dirHash(dataDir)}`
  const inDir = join(resolve(dataDir), 'desk.sock')
  if (Buffer.byteLength(inDir) <= MAX_SUN_PATH) return inDir
  return join(shortSocketDir(), `${dirHash(dataDir)}.sock`)
}

/** A 0700 directory of this user under the temp dir, refused if someone else owns it. */
function shortSocketDir(): string {
  const uid = typeof process.getuid === 'function' ? process.getuid() : 0
  const dir = join(tmpdir(), `treasury-desk-${uid}`)
  mkdirSync(dir, { recursive: true, mode: 0o700 })
  const st = lstatSync(dir)
  if (!st.isDirectory() || st.uid !== uid) throw new DeskError('SocketDirUnsafe', `${dir} is not a directory owned by this user; remove it`)
  if ((st.mode & 0o077) !== 0) chmodSync(dir, 0o700)
  return dir
}
