/**
 * One writer per data directory: the desktop app, the web host and a standalone `desk` each
 * hold `<dataDir>/desk.lock` (created with O_EXCL) while they run the core. A lock whose process
 * is gone is taken over; a live one is `DataDirBusy`, naming its holder.
 */
import { closeSync, mkdirSync, openSync, readFileSync, renameSync, statSync, unlinkSync, writeSync } from 'node:fs'
import { join } from 'node:path'
import { DeskError } from '../../core/errors/desk-error'

export type LockRole = 'electron' | 'web' | 'desk'

/** What the lock file holds: who runs the core here, so others can say so. */
export interface LockHolder {
  pid: number
  /** Linux: the process's start time in clock ticks (/proc/<pid>/stat), so a reused pid is not taken for the holder. */
  procStart: string | null
  startedAt: number
  role: LockRole
}

export interface DataDirLock {
  readonly path: string
  readonly holder: LockHolder
  release(): void
}

export function lockPath(dataDir: string): string {
  return join(dataDir, 'desk.lock')
}

/** Field 22 of /proc/<pid>/stat (start time since boot), or null off Linux / when unreadable. */
function procStart(pid: number): string | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
    // The command name (field 2) may contain spaces and parentheses: split after its last ')'.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
    return fields[19] ?? null
  } catch {
    return null
  }
}

function isAlive(h: LockHolder): boolean {
  try {
    process.kill(h.pid, 0)
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'EPERM') return false
  }
  if (h.procStart === null) return true
  const now = procStart(h.pid)
  return now === null || now === h.procStart
}

function readHolder(path: string): LockHolder | null {
  try {
    const j = JSON.parse(readFileSync(path, 'utf8')) as Partial<LockHolder>
    if (typeof j.pid !== 'number' || !Number.isSafeInteger(j.pid) || j.pid <= 0) return null
    return {
      pid: j.pid,
      procStart: typeof j.procStart === 'string' ? j.procStart : null,
      startedAt: typeof j.startedAt === 'number' ? j.startedAt : 0,
      role: j.role ?? 'desk',
    }
  } catch {
    return null
  }
}

function ageMs(path: string): number {
  try {
    return Date.now() - statSync(path).mtimeMs
  } catch {
    return Infinity
  }
}

/** A lock being written right now (created, not yet filled) is young; an unreadable old one is debris. */
const WRITE_GRACE_MS = 2_000

function busy(h: LockHolder, path: string): DeskError {
  const what = h.role === 'desk' ? '`desk`' : h.role === 'electron' ? 'the desktop app' : 'the web host'
  return new DeskError(
    'DataDirBusy',
    `this data directory is in use by ${what} (pid ${h.pid}, since ${new Date(h.startedAt).toISOString()}); only one process writes its journal (lock ${path})`,
    {
      pid: h.pid,
      role: h.role,
    },
  )
}

function tryCreate(path: string, holder: LockHolder): boolean {
  let fd: number
  try {
    fd = openSync(path, 'wx', 0o600)
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'EEXIST') return false
    throw new DeskError('DataDirLockFailed', `cannot create ${path}: ${(e as NodeJS.ErrnoException).code ?? 'error'}`)
  }
  try {
    writeSync(fd, JSON.stringify(holder) + '\n')
  } finally {
    closeSync(fd)
  }
  return true
}

/**
 * Removes a stale lock under a takeover mutex (itself O_EXCL), re-checking inside it, so two
 * processes finding the same stale lock never remove each other's fresh one.
 */
function takeOverStale(path: string, seen: LockHolder | null): void {
  const mutex = `${path}.takeover`
  if (ageMs(mutex) > 10_000) {
    try {
      unlinkSync(mutex)
    } catch {
      // Someone else cleared it.
    }
  }
  let fd: number
  try {
    fd = openSync(mutex, 'wx', 0o600)
  } catch {
    return // Another process is taking over; the caller retries.
  }
  closeSync(fd)
  try {
    const now = readHolder(path)
    const same =
      now === null
        ? seen === null && ageMs(path) > WRITE_GRACE_MS
        : seen !== null && now.pid === seen.pid && now.startedAt === seen.startedAt
    if (same && (now === null || !isAlive(now))) {
      // Renamed first so the evidence survives for a post-mortem, then removed.
      const aside = `${path}.stale-${process.pid}`
      try {
        renameSync(path, aside)
        unlinkSync(aside)
      } catch {
        // Already gone.
      }
    }
  } finally {
    unlinkSync(mutex)
  }
}

export function acquireDataDirLock(dataDir: string, role: LockRole): DataDirLock {
  mkdirSync(dataDir, { recursive: true, mode: 0o700 })
  const path = lockPath(dataDir)
  const holder: LockHolder = { pid: process.pid, procStart: procStart(process.pid), startedAt: Date.now(), role }
  for (let attempt = 0; attempt < 5; attempt++) {
    if (tryCreate(path, holder)) {
      let released = false
      const release = () => {
        if (released) return
        released = true
        // Only our own lock is removed (never one a later process took over).
        const now = readHolder(path)
        if (now && now.pid === holder.pid && now.startedAt === holder.startedAt) {
          try {
            unlinkSync(path)
          } catch {
            // Already gone.
          }
        }
      }
      process.once('exit', release)
      return { path, holder, release: () => (process.off('exit', release), release()) }
    }
    const current = readHolder(path)
    if (current && isAlive(current)) throw busy(current, path)
    if (!current && ageMs(path) <= WRITE_GRACE_MS)
      throw new DeskError('DataDirBusy', `this data directory is being locked by another process right now (lock ${path})`)
    takeOverStale(path, current)
  }
  const last = readHolder(path)
  throw last ? busy(last, path) : new DeskError('DataDirBusy', `cannot take the lock ${path}`)
}

/** The lock's holder when a live process holds it, else null. */
export function currentHolder(dataDir: string): LockHolder | null {
  const h = readHolder(lockPath(dataDir))
  return h && isAlive(h) ? h : null
}
