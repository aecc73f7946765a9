/**
 * Signature batches on worker threads, for wall time on a multi-core machine: a 10,000-entry chain
 * carries 10,000 signatures and verifyBatch is pure CPU. The worker runs the very same code as
 * this thread: its source is verify-ecdsa.ts's `ecdsaKit` as text (a self-contained function), so
 * there is no worker file to find at run time and no build entry, whether this module runs under
 * tsx, vitest, the electron-vite main bundle or the CLI's esbuild bundle. A worker only computes
 * verdicts; which signatures are asked, and everything else about an entry, stays with the chain
 * verifier. If a worker cannot start or fails, its share is verified in this thread instead.
 */
import { availableParallelism } from 'node:os'
import { Worker } from 'node:worker_threads'
import { ecdsaKit, verifyBatch, type BatchItem } from './verify-ecdsa'

/** Below this many signatures a batch stays in this thread (a worker round trip is not worth it). */
let parallelMin = 256

// Plain JavaScript run as the worker's script (CommonJS, so `require` is there). `__name` is the
// helper esbuild's keepNames (tsx) calls inside function bodies; defined as a no-op so the kit's
// text runs whatever transform produced it.
const WORKER_SOURCE = `'use strict'
const { parentPort } = require('node:worker_threads')
const __name = (f) => f
const kit = (${ecdsaKit.toString()})()
kit.verifyBatch([]) // builds G's tables now, while the caller is still busy with its own work
const tables = new Map()
parentPort.on('message', (m) => {
  let reply
  try {
    const keys = m.keys.map(([x, y]) => {
      const id = x.toString(16) + ':' + y.toString(16)
      let t = tables.get(id)
      if (!t) {
        if (!kit.onCurve(x, y)) throw new Error('a key is not on the curve')
        t = new kit.KeyTable(x, y)
        tables.set(id, t)
      }
      return t
    })
    const items = m.d.map((d, i) => ({ key: keys[m.k[i]], digest: d, r: m.r[i], s: m.s[i], recovery: m.v[i] }))
    reply = { id: m.id, ok: Uint8Array.from(kit.verifyBatch(items), (b) => (b ? 1 : 0)) }
  } catch (e) {
    reply = { id: m.id, error: String((e && e.message) || e) }
  }
  parentPort.postMessage(reply)
})
`

/**
 * The native path's worker (verify-native.ts): public-key recovery by libsecp256k1 for a batch,
 * loaded by the absolute path this thread resolved. It returns the 65-byte keys (all zero where
 * nothing recovers); which key a signature must recover, and what an address is, stay with
 * signatures.ts in the calling thread.
 */
const nativeSource = (bindingPath: string) => `'use strict'
const { parentPort } = require('node:worker_threads')
const b = require(${JSON.stringify(bindingPath)})
parentPort.on('message', (m) => {
  const n = m.rec.length
  const out = new Uint8Array(65 * n)
  for (let i = 0; i < n; i++) {
    try {
      b.ecdsaRecover(m.sig.subarray(64 * i, 64 * i + 64), m.rec[i], m.msg.subarray(32 * i, 32 * i + 32), false, out.subarray(65 * i, 65 * i + 65))
    } catch {
      out.fill(0, 65 * i, 65 * i + 65)
    }
  }
  parentPort.postMessage({ id: m.id, out }, [out.buffer])
})
`

interface Job {
  resolve: (m: Reply) => void
  reject: (e: Error) => void
}
interface Reply {
  id: number
  ok?: Uint8Array
  out?: Uint8Array
  error?: string
}

class BatchWorker {
  private readonly worker: Worker
  private readonly jobs = new Map<number, Job>()
  private next = 0
  dead = false

  constructor(source = WORKER_SOURCE) {
    // No execArgv: the script is plain JavaScript, and a loader inherited from the parent (tsx's)
    // would keep an unref'd worker's process alive.
    this.worker = new Worker(source, { eval: true, execArgv: [] })
    this.worker.on('message', (m: Reply) => {
      const job = this.jobs.get(m.id)
      if (!job) return
      this.jobs.delete(m.id)
      if (this.jobs.size === 0) this.worker.unref()
      if (m.error === undefined) job.resolve(m)
      else job.reject(new Error(m.error))
    })
    const fail = (e: Error) => {
      this.dead = true
      for (const job of this.jobs.values()) job.reject(e)
      this.jobs.clear()
    }
    this.worker.on('error', fail)
    this.worker.on('exit', (code) => fail(new Error(`verification worker exited (${code})`)))
    // Referenced only while a job runs: an idle pool must not keep a CLI or a test process alive,
    // and a process awaiting a verdict must not exit under it.
    this.worker.unref()
  }

  async run(items: readonly BatchItem[]): Promise<boolean[]> {
    // Keys by index (each sent once as its point Q = the table's first entry, 1·Q).
    const keyIndex = new Map<object, number>()
    const keys: [bigint, bigint][] = []
    const k = new Uint16Array(items.length)
    items.forEach((it, i) => {
      let at = keyIndex.get(it.key)
      if (at === undefined) {
        at = keys.length
        keyIndex.set(it.key, at)
        keys.push([it.key.xs[0]!, it.key.ys[0]!])
      }
      k[i] = at
    })
    const m = await this.send({
      keys,
      k,
      d: items.map((it) => it.digest),
      r: items.map((it) => it.r),
      s: items.map((it) => it.s),
      v: Uint8Array.from(items, (it) => it.recovery),
    })
    if (!m.ok) throw new Error('worker sent no verdicts')
    return Array.from(m.ok, (b) => b === 1)
  }

  send(payload: object): Promise<Reply> {
    const id = this.next++
    return new Promise<Reply>((resolve, reject) => {
      if (this.jobs.size === 0) this.worker.ref()
      this.jobs.set(id, { resolve, reject })
      this.worker.postMessage({ id, ...payload })
    })
  }
}

let pool: BatchWorker[] = []
/** Worker threads besides this one: one fewer than the cores (none on one core), at most 3. */
let threads = Math.max(0, Math.min(availableParallelism() - 1, 3))

/** For tests and the bench: how many workers to use (0 = this thread only), from what batch size. */
export function setVerifyThreads(n: number, minBatch = 256): void {
  threads = n
  parallelMin = minBatch
}

export const verifyThreads = (): number => threads

/** Verdicts the workers gave, and items they could not take (done in this thread). */
export const workerStats = { remote: 0, fallback: 0 }

async function onWorker(w: BatchWorker | null, items: readonly BatchItem[]): Promise<boolean[]> {
  if (w) {
    try {
      const ok = await w.run(items)
      if (ok.length === items.length) {
        workerStats.remote += items.length
        return ok
      }
    } catch {
      // decided below, in this thread
    }
  }
  workerStats.fallback += items.length
  return verifyBatch(items)
}

function workers(n: number): (BatchWorker | null)[] {
  pool = pool.filter((w) => !w.dead)
  while (pool.length < n) {
    try {
      pool.push(new BatchWorker())
    } catch {
      break
    }
  }
  return Array.from({ length: n }, (_, i) => pool[i] ?? null)
}

/**
 * Starts the workers a batch of `count` signatures will use, so their start-up (and G's tables)
 * overlaps with the caller's own work before the batch (parsing rows, first recoveries).
 */
export function warmUp(count: number): void {
  if (threads >= 1 && count >= parallelMin) workers(threads)
}

/**
 * verifyBatch split between this thread and the workers, same verdicts. `local` gets the first
 * part's verdicts at once (computed here, synchronously); `rest` resolves with the remaining
 * items' verdicts, from the workers. The worker parts are the later items, so a caller that walks
 * the items in order finds this thread's part ready first while the workers still run.
 */
export function verifyBatchSplit(items: readonly BatchItem[]): { local: boolean[]; rest: Promise<boolean[]> } {
  if (threads < 1 || items.length < parallelMin) return { local: verifyBatch(items), rest: Promise.resolve([]) }
  // This thread also runs the chain's rules afterwards, so it takes a bit less than an equal share.
  const head = Math.floor((items.length * 0.8) / (threads + 1))
  const ws = workers(threads)
  const per = Math.ceil((items.length - head) / ws.length)
  const parts = ws.map((w, i) => onWorker(w, items.slice(head + i * per, head + (i + 1) * per)))
  const local = verifyBatch(items.slice(0, head))
  return { local, rest: Promise.all(parts).then((ps) => ps.flat()) }
}

let nativeWorker: BatchWorker | null = null

/**
 * libsecp256k1 recovery of `n` signatures (msg: 32·n bytes, sig: r|s 64·n bytes, rec: n recovery
 * bits) on a worker thread: 65·n bytes of uncompressed keys, zero where nothing recovers. Null when
 * no worker is to be used (one core, or `setVerifyThreads(0)`) or the worker failed: the caller
 * recovers in its own thread then.
 */
export async function recoverOnWorker(bindingPath: string, msg: Uint8Array, sig: Uint8Array, rec: Uint8Array): Promise<Uint8Array | null> {
  if (threads < 1 || rec.length === 0) return null
  try {
    if (!nativeWorker || nativeWorker.dead) nativeWorker = new BatchWorker(nativeSource(bindingPath))
    const m = await nativeWorker.send({ msg, sig, rec })
    if (!m.out || m.out.length !== 65 * rec.length) return null
    workerStats.remote += rec.length
    return m.out
  } catch {
    return null
  }
}

/** The size of batch worth sending to a worker (below it, recovery stays in this thread). */
export const parallelMinimum = (): number => parallelMin
