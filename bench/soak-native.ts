/**
 * The soak child's native-memory breakdown: where RSS lives besides the collected JS heap, so a
 * growth outside the heap can be put on its owner. Linux only (/proc); elsewhere the /proc
 * fields read -1. Sizes in KiB.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs'
import { createRequire } from 'node:module'
import { join } from 'node:path'
import { getHeapSpaceStatistics, getHeapStatistics } from 'node:v8'

export interface NativeBreakdown {
  /** process.memoryUsage(): V8's reserved heap, off-heap memory V8 knows of, ArrayBuffer backing stores */
  heapTotal: number
  external: number
  arrayBuffers: number
  /** V8's code space in use, and the memory V8 itself malloc'ed */
  codeSpace: number
  v8Malloced: number
  /** /proc/self/status: anonymous, file-backed and shared resident memory; threads */
  rssAnon: number
  rssFile: number
  rssShmem: number
  threads: number
  /** glibc malloc: resident memory of the main arena ([heap]) and of the thread arenas (64 MiB-aligned anonymous heaps), and their count */
  mainArena: number
  threadArenas: number
  threadArenaCount: number
  /** SQLite: open connections, their page-cache bound (cache_size summed), and the WAL and shared-memory index files in the data dir */
  sqliteConnections: number
  sqliteCacheBound: number
  wal: number
  shm: number
  /** the database files themselves (the page cache fills up to the smaller of this and its bound) */
  dbFiles: number
}

const KB = 1024
const ARENA_HEAP = 64 * 1024 * 1024 // glibc's HEAP_MAX_SIZE on 64-bit: thread arenas grow in heaps of this size and alignment

/** Every better-sqlite3 connection the process opens, held weakly (the core keeps its own handles private). */
const connections = new Set<WeakRef<object>>()
export function trackSqlite(): void {
  const Db = createRequire(import.meta.url)('better-sqlite3') as { prototype: Record<string, (...a: unknown[]) => unknown> }
  const original = Db.prototype.prepare!
  const seen = new WeakSet<object>()
  Db.prototype.prepare = function (this: object, ...a: unknown[]) {
    if (!seen.has(this)) {
      seen.add(this)
      connections.add(new WeakRef(this))
    }
    return original.apply(this, a)
  }
}

function sqlite(): { n: number; cacheKb: number } {
  let n = 0
  let cacheKb = 0
  for (const ref of connections) {
    const db = ref.deref() as { open: boolean; pragma(s: string, o: { simple: true }): unknown } | undefined
    if (!db || !db.open) {
      connections.delete(ref)
      continue
    }
    n++
    const size = Number(db.pragma('cache_size', { simple: true }))
    const page = Number(db.pragma('page_size', { simple: true }))
    // Negative cache_size is a bound in KiB, positive a page count.
    cacheKb += size < 0 ? -size : (size * page) / KB
  }
  return { n, cacheKb }
}

function procStatus(): Record<string, number> {
  const out: Record<string, number> = {}
  try {
    for (const line of readFileSync('/proc/self/status', 'utf8').split('\n')) {
      const m = /^(RssAnon|RssFile|RssShmem|Threads):\s+(\d+)/.exec(line)
      if (m) out[m[1]!] = Number(m[2])
    }
  } catch {
    // not Linux
  }
  return out
}

/** Resident KiB of the main malloc arena and of the thread arenas, from /proc/self/smaps. */
function arenas(): { main: number; thread: number; count: number } {
  let text: string
  try {
    text = readFileSync('/proc/self/smaps', 'utf8')
  } catch {
    return { main: -1, thread: -1, count: -1 }
  }
  let main = 0
  let thread = 0
  let count = 0
  // A thread arena heap: an anonymous mapping at a 64 MiB-aligned address, read-write then
  // reserved (---p), together exactly 64 MiB.
  let heapStart = -1
  let heapRss = 0
  let cur: { start: number; end: number; perms: string; anon: boolean; heap: boolean } | null = null
  const close = () => {
    if (heapStart >= 0 && cur && cur.end - heapStart === ARENA_HEAP) {
      thread += heapRss
      count++
    }
  }
  for (const line of text.split('\n')) {
    const head = /^([0-9a-f]+)-([0-9a-f]+) (\S{4}) \S+ \S+ (\d+)\s*(.*)$/.exec(line)
    if (head) {
      const start = parseInt(head[1]!, 16)
      const end = parseInt(head[2]!, 16)
      const anon = head[4] === '0' && head[5] === ''
      const contiguous = cur !== null && cur.end === start && anon && heapStart >= 0 && head[3] === '---p' && start - heapStart < ARENA_HEAP
      if (!contiguous) {
        close()
        heapStart = anon && head[3] === 'rw-p' && start % ARENA_HEAP === 0 ? start : -1
        heapRss = 0
      }
      cur = { start, end, perms: head[3]!, anon, heap: head[5] === '[heap]' }
      continue
    }
    const rss = /^Rss:\s+(\d+) kB/.exec(line)
    if (rss && cur) {
      const kb = Number(rss[1])
      if (cur.heap) main += kb
      if (heapStart >= 0) heapRss += kb
    }
  }
  close()
  return { main, thread, count }
}

function walFiles(dataDir: string): { wal: number; shm: number; db: number } {
  let wal = 0
  let shm = 0
  let db = 0
  try {
    for (const f of readdirSync(dataDir)) {
      if (f.endsWith('-wal')) wal += statSync(join(dataDir, f)).size / KB
      if (f.endsWith('-shm')) shm += statSync(join(dataDir, f)).size / KB
      if (f.endsWith('.sqlite') || f.endsWith('.db')) db += statSync(join(dataDir, f)).size / KB
    }
  } catch {
    // the data dir is gone (closing)
  }
  return { wal: Math.round(wal), shm: Math.round(shm), db: Math.round(db) }
}

export function nativeBreakdown(dataDir: string): NativeBreakdown {
  const m = process.memoryUsage()
  const code = getHeapSpaceStatistics().find((s) => s.space_name === 'code_space')
  const st = procStatus()
  const a = arenas()
  const db = sqlite()
  const files = walFiles(dataDir)
  return {
    heapTotal: Math.round(m.heapTotal / KB),
    external: Math.round(m.external / KB),
    arrayBuffers: Math.round(m.arrayBuffers / KB),
    codeSpace: Math.round((code?.space_used_size ?? 0) / KB),
    v8Malloced: Math.round(getHeapStatistics().malloced_memory / KB),
    rssAnon: st.RssAnon ?? -1,
    rssFile: st.RssFile ?? -1,
    rssShmem: st.RssShmem ?? -1,
    threads: st.Threads ?? -1,
    mainArena: a.main,
    threadArenas: a.thread,
    threadArenaCount: a.count,
    sqliteConnections: db.n,
    sqliteCacheBound: Math.round(db.cacheKb),
    wal: files.wal,
    shm: files.shm,
    dbFiles: files.db,
  }
}

export const NATIVE_KEYS: readonly (keyof NativeBreakdown)[] = [
  'heapTotal',
  'external',
  'arrayBuffers',
  'codeSpace',
  'v8Malloced',
  'rssAnon',
  'rssFile',
  'rssShmem',
  'threads',
  'mainArena',
  'threadArenas',
  'threadArenaCount',
  'sqliteConnections',
  'sqliteCacheBound',
  'wal',
  'shm',
  'dbFiles',
]
