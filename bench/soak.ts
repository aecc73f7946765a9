/**
 * Memory soak: `npm run soak -- --minutes N [--accounts A] [--strict]` (or `npx tsx bench/soak.ts …`);
 * without `--strict` the desk runs with strict limits off (it opens the sockets it needs).
 * The driver starts a LIVE sandbox in this process (moving marks, the scenario's bot trading,
 * default rate limits, earn withdrawals claimable after EARN_PENDING_S), funds A accounts
 * (default 20) plus the market maker's two accounts watched, and forks the core into a child
 * process with the overview push on; every second it deposits into one account (frames, overview
 * patches), and the child requests and claims earn withdrawals through the desk (signed, through
 * the earn sandbox) on four (owner, asset) slots. The child reports its RSS and heap every
 * SAMPLE_MS with its resources: event hub subscribers, listeners on every event emitter (those on
 * `ws` sockets apart), active handles by type (process.getActiveResourcesInfo(): timers, sockets)
 * and open file descriptors (/proc/self/fd). Growth is judged on the child alone. At the end the
 * desk's fills of the market maker's accounts (collected from its account pages every
 * FILLS_POLL_MS) are compared on tid, price, size and side with the sandbox's own fills.
 * Goal: RSS at the end ≤ 1.10x RSS after the warm-up (5 minutes; the first quarter for N < 10),
 * each side the median of a quarter of the steady samples, with the noise taken from the scatter
 * around a fitted line (a steady leak is slope, so it cannot hide in the noise); and the growth
 * along that line across the steady window, judged against the same 1.10x with its standard error;
 * and the JS heap after a full collection (the child collects before each sample), end against
 * reference like RSS: memory the allocator returns to the system cannot hide a leak there.
 * Prints one JSON object on stdout; `--json-only` drops the human lines on stderr.
 */
import { fork } from 'node:child_process'
import { EventEmitter } from 'node:events'
import { readdirSync, rmSync } from 'node:fs'
import { join } from 'node:path'
import { writeHeapSnapshot } from 'node:v8'
import { fileURLToPath } from 'node:url'
import type { Address } from 'viem'
import { WebSocket } from 'ws'
import type { AccountDetailView, EarnPage, EarnWithdrawalView } from '../main/contract/types'
import { devBot, devOwner } from '../sandbox/scenario/dev-keys'
import { fromValue, median, type Figure } from './judge'
import {
  ACCOUNTS,
  approveConfirmations,
  BENCH_PASSPHRASE,
  call,
  openCore,
  prepareDataDir,
  setStrictLimits,
  startLiveSandbox,
  urlsOf,
  type Extra,
  type SandboxUrls,
} from './desk-fixture'
import { DEFAULT_SCRYPT } from '../main/core/vault'
import { NATIVE_KEYS, nativeBreakdown, trackSqlite, type NativeBreakdown } from './soak-native'

const SAMPLE_MS = 2000
export const GROWTH_GOAL = 1.1
/** Earn withdrawals become claimable this long after their request (the spec's default is 120 s). */
const EARN_PENDING_S = 10
const EARN_TICK_MS = 5000
const FIRST_OVERVIEW_BOX_MS = 60_000
/** The desk's account page lists the latest 200 fills: read often enough that none scrolls past unseen. */
const FILLS_POLL_MS = 10_000
/** The (owner, asset) slots whose withdrawals the child requests and claims (funded by the scenario's earn seed). */
const EARN_SLOTS = [
  { owner: 0, assetId: 1 },
  { owner: 1, assetId: 1 },
  { owner: 2, assetId: 1 },
  { owner: 1, assetId: 2 },
] as const
/** The market maker's accounts, watched so their fills can be checked against the sandbox's. */
const BOT_WATCH: Extra[] = [
  { address: devBot(0).address.toLowerCase() as Address, label: 'Soak maker' },
  { address: devBot(1).address.toLowerCase() as Address, label: 'Soak taker' },
]

/** What the child holds on to besides memory: each must stay flat. */
interface Resources {
  /** subscribers of the core's event hub */
  hub: number
  /** listeners on every live event emitter that ever had one (ws sockets included) */
  listeners: number
  /** listeners on live `ws` WebSockets, and how many of those sockets */
  wsListeners: number
  wsSockets: number
  /** active handles and requests (process.getActiveResourcesInfo()), all, timers, TCP sockets */
  handles: number
  timers: number
  sockets: number
  /** open file descriptors (/proc/self/fd) */
  fds: number
}

interface Sample extends Resources {
  t: number
  rss: number
  heap: number
  pushes: number
  earn: { created: number; claimed: number; failed: number; lastError: string }
  /** passphrase re-entries so far (owner-key confirmations that asked for it: one scrypt each) */
  reentries: number
  /** where the RSS lives besides the collected heap (KiB) */
  native: NativeBreakdown
}

interface FillKey {
  tid: string
  px: string
  sz: string
  side: string
}

export interface SoakReport {
  minutes: number
  comparison: string
  samples: Sample[]
  figure: Figure
  /** The growth along the line fitted through the steady samples. */
  projection: Figure
  /** The collected JS heap, end against reference. */
  heapFigure: Figure
  pushes: number
  deposits: number
  bot_fills: number
  accounts: number
  strict: boolean
  /** resource counts over time: the reference (median after the warm-up) and the end (median of the last quarter), and the max */
  resources: Record<keyof Resources, { ref: number; refMax: number; end: number; max: number; series: number[] }>
  /** the resources whose end median exceeds every sample of the reference window (growth) */
  grown: string[]
  /** the native-memory breakdown (KiB), reference and end medians of the same windows, and the max */
  native: Record<keyof NativeBreakdown, { ref: number; end: number; max: number }>
  reentries: number
  earn: Sample['earn']
  /** the desk's fills of the market maker's accounts against the sandbox's, on tid (and price, size, side) */
  fills: { user: string; sandbox: number; desk: number; missing: number; extra: number; different: number; examples: string[] }[]
  fillsExact: boolean
}

/**
 * Every event emitter that ever took a listener, held weakly: summing their listeners at each
 * sample counts what the process subscribes to (sockets, streams, the core's own emitters).
 */
const emitters = new Set<WeakRef<EventEmitter>>()
const seen = new WeakSet<EventEmitter>()
function trackEmitters(): void {
  const proto = EventEmitter.prototype as unknown as Record<string, (...a: unknown[]) => unknown>
  for (const name of ['on', 'addListener', 'once', 'prependListener', 'prependOnceListener']) {
    const original = proto[name]!
    proto[name] = function (this: EventEmitter, ...a: unknown[]) {
      if (!seen.has(this)) {
        seen.add(this)
        emitters.add(new WeakRef(this))
      }
      return original.apply(this, a)
    }
  }
}

function resources(hubSize: number): Resources {
  let listeners = 0
  let wsListeners = 0
  let wsSockets = 0
  for (const ref of emitters) {
    const e = ref.deref()
    if (!e) {
      emitters.delete(ref)
      continue
    }
    const n = e.eventNames().reduce((sum, name) => sum + e.listenerCount(name), 0)
    listeners += n
    if (e instanceof WebSocket && e.readyState !== WebSocket.CLOSED) {
      wsSockets++
      wsListeners += n
    }
  }
  const active = process.getActiveResourcesInfo()
  let fds = -1
  try {
    fds = readdirSync('/proc/self/fd').length
  } catch {
    // no /proc (not Linux): reported as -1
  }
  return {
    hub: hubSize,
    listeners,
    wsListeners,
    wsSockets,
    handles: active.length,
    timers: active.filter((x) => x === 'Timeout' || x === 'Immediate').length,
    sockets: active.filter((x) => x === 'TCPSocketWrap' || x === 'TCPServerWrap' || x === 'PipeWrap').length,
    fds,
  }
}

/**
 * Requests and claims earn withdrawals through the desk: per slot, a claimable one is claimed,
 * and once none is active a new scheduled one (1.0) is requested. Errors are counted, not thrown.
 */
function earnDriver(core: Awaited<ReturnType<typeof openCore>>): { tick(): Promise<void>; stats: Sample['earn'] } {
  const stats = { created: 0, claimed: 0, failed: 0, lastError: '' }
  const terminal = new Set(['claimed', 'completed', 'cancelled', 'failed', 'rejected'])
  return {
    stats,
    async tick() {
      // The operator is at the desk: the web and Electron hosts touch the core on every request
      // (resetting the vault's idle auto-lock), and these requests come through `dispatch` directly.
      core.touch()
      for (const slot of EARN_SLOTS) {
        const account = devOwner(slot.owner).address
        try {
          const page = await call<EarnPage<EarnWithdrawalView>>(core, 'earn.withdrawals', { account, assetId: slot.assetId, limit: 5 })
          const active = page.items.find((w) => w.assetId === slot.assetId && !terminal.has(w.status))
          if (!active) {
            await call(core, 'earn.create', { account, assetId: slot.assetId, amount: '1', type: 'scheduled' })
            stats.created++
          } else if (active.status === 'queued' && active.claimableAt !== null && active.claimableAt <= Date.now()) {
            await call(core, 'earn.claim', { account, operationId: active.operationId })
            stats.claimed++
          }
        } catch (e) {
          stats.failed++
          stats.lastError = e instanceof Error ? e.message.slice(0, 200) : String(e)
        }
      }
    },
  }
}

/** The child: the core over the prepared data dir, unlocked, overview push on; reports memory and resources. */
async function child(dataDir: string, urls: SandboxUrls, fillUsers: string[]): Promise<void> {
  trackEmitters()
  trackSqlite()
  const stage = (what: string) => process.env.SOAK_DEBUG && process.stderr.write(`soak child ${new Date().toISOString()}: ${what}\n`)
  const core = await openCore(dataDir, urls, 5000)
  stage('core open')
  await call(core, 'vault.unlock', { passphrase: BENCH_PASSPHRASE })
  stage('unlocked')
  let pushes = 0
  let reentries = 0
  core.events.subscribe((event, payload) => {
    if (event === 'state.overview') pushes++
    if (event === 'confirm.request' && (payload as { needsPassphrase?: boolean }).needsPassphrase) reentries++
  })
  // Boxed: in strict mode a first start over an empty cache reads every account at 1 /info per
  // second, minutes at 200 accounts; the run's warm-up absorbs the rest of that filling.
  await Promise.race([call(core, 'portfolio.overview'), new Promise((r) => setTimeout(r, FIRST_OVERVIEW_BOX_MS))])
  stage('first overview (or its box)')
  // Bench-only introspection: the hub keeps its subscribers in a private set.
  const hubSize = () => (core.events as unknown as { listeners: Set<unknown> }).listeners.size
  approveConfirmations(core) // earn requests and claims are owner-key signatures
  const earn = earnDriver(core)
  // The desk's fills of the watched bot accounts, as its account page lists them (the stream's
  // fills, deduplicated on tid), collected over the run.
  const fills = new Map<string, Map<string, FillKey>>(fillUsers.map((u) => [u, new Map()]))
  const readFills = async () => {
    for (const [user, got] of fills) {
      const d = await call<AccountDetailView>(core, 'account.detail', { address: user }).catch(() => null)
      for (const f of d?.fills ?? []) got.set(f.tid, { tid: f.tid, px: f.price, sz: f.size, side: f.side ?? '' })
    }
  }
  void readFills()
  const t0 = Date.now()
  const report = () => {
    // A full collection before each sample: what is left is what the core holds on to, so the
    // series shows a leak instead of where the collector happened to be in its cycle.
    ;(globalThis as { gc?: () => void }).gc?.()
    const m = process.memoryUsage()
    process.send?.({
      type: 'sample',
      t: Date.now() - t0,
      rss: m.rss,
      heap: m.heapUsed,
      pushes,
      earn: { ...earn.stats },
      reentries,
      native: nativeBreakdown(dataDir),
      ...resources(hubSize()),
    })
  }
  report()
  setInterval(report, SAMPLE_MS)
  // Diagnosis only: SOAK_HEAP_SNAPSHOTS="300,600" writes a heap snapshot of the child at those
  // seconds into SOAK_SNAPSHOT_DIR (default the working directory), to compare by constructor.
  for (const at of (process.env.SOAK_HEAP_SNAPSHOTS ?? '').split(',').filter(Boolean).map(Number)) {
    setTimeout(() => {
      const file = writeHeapSnapshot(join(process.env.SOAK_SNAPSHOT_DIR ?? '.', `soak-${at}s.heapsnapshot`))
      process.stderr.write(`soak child: heap snapshot at ${at} s: ${file}\n`)
    }, at * 1000).unref()
  }
  const loop = (ms: number, fn: () => Promise<void>) => {
    let busy = false
    setInterval(() => {
      if (busy) return
      busy = true
      void fn().finally(() => (busy = false))
    }, ms)
  }
  loop(EARN_TICK_MS, () => earn.tick())
  loop(FILLS_POLL_MS, readFills)
  process.on('message', (m) => {
    if (m === 'fills') {
      void readFills().then(() =>
        process.send?.({ type: 'fills', fills: Object.fromEntries([...fills].map(([u, g]) => [u, [...g.values()]])) }),
      )
    }
    if (m === 'stop') void core.close().finally(() => process.exit(0))
  })
}

const MB = 1024 * 1024

/** The breakdown in MB, for the progress lines. */
function nativeLine(n: NativeBreakdown): string {
  const mb = (kb: number) => (kb / 1024).toFixed(1)
  return `heapTotal ${mb(n.heapTotal)}, external ${mb(n.external)}, arrayBuffers ${mb(n.arrayBuffers)}, code ${mb(n.codeSpace)}, anon ${mb(n.rssAnon)}, file ${mb(n.rssFile)}, malloc main ${mb(n.mainArena)} + ${n.threadArenaCount} thread arenas ${mb(n.threadArenas)}, sqlite ${n.sqliteConnections} conn cache <= ${mb(n.sqliteCacheBound)} wal ${mb(n.wal)} shm ${mb(n.shm)} db ${mb(n.dbFiles)}, threads ${n.threads}`
}

/** Least-squares line y = intercept + slope x, with the slope's standard error. */
export function linearFit(xs: readonly number[], ys: readonly number[]): { slope: number; intercept: number; slopeSe: number } {
  const n = xs.length
  const mx = xs.reduce((a, b) => a + b, 0) / n
  const my = ys.reduce((a, b) => a + b, 0) / n
  let sxx = 0
  let sxy = 0
  for (let i = 0; i < n; i++) {
    sxx += (xs[i]! - mx) ** 2
    sxy += (xs[i]! - mx) * (ys[i]! - my)
  }
  const slope = sxx > 0 ? sxy / sxx : 0
  const intercept = my - slope * mx
  let sse = 0
  for (let i = 0; i < n; i++) sse += (ys[i]! - (intercept + slope * xs[i]!)) ** 2
  const slopeSe = n > 2 && sxx > 0 ? Math.sqrt(sse / (n - 2) / sxx) : Infinity
  return { slope, intercept, slopeSe }
}

/** A decimal string without trailing fractional zeros ("1.50" and "1.5" are the same price). */
const canon = (d: string) => (d.includes('.') ? d.replace(/0+$/, '').replace(/\.$/, '') : d)

/** Runs the soak for `minutes` over `accounts` accounts and judges growth. */
export async function soak(
  minutes: number,
  log: (line: string) => void = (l) => process.stderr.write(l + '\n'),
  accounts = ACCOUNTS,
  strict = false,
): Promise<SoakReport> {
  const sandbox = await startLiveSandbox({ earnPendingSeconds: EARN_PENDING_S })
  // The vault at the cost the desk ships (N = 2^18), not the benches' cheap one: a passphrase
  // re-entry (every 5 minutes of owner-key signing) runs one scrypt in the libuv threadpool, and
  // glibc keeps a buffer under its 32 MiB mmap cap (N = 2^14: 16 MiB) resident in that thread's
  // malloc arena after the free, one per pool thread: 4 x 16 MiB of RSS steps the desk as shipped
  // never takes (its 256 MiB buffer is mmapped and unmapped on free).
  const { dataDir, extra } = await prepareDataDir(sandbox, undefined, accounts, BOT_WATCH, DEFAULT_SCRYPT)
  // The sandbox network's own default is strict limits; the soak runs without them unless asked.
  setStrictLimits(dataDir, urlsOf(sandbox), strict)
  const fillsBefore = sandbox.trading.groundTruth().length
  const samples: Sample[] = []
  let deposits = 0
  let coreUpAt = 0
  let deskFills: Record<string, FillKey[]> = {}
  const fillUsers = BOT_WATCH.map((w) => w.address)
  const proc = fork(fileURLToPath(import.meta.url), ['--child', dataDir, JSON.stringify(urlsOf(sandbox)), JSON.stringify(fillUsers)], {
    execArgv: [...process.execArgv, '--expose-gc'],
    stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
  })
  try {
    const durationMs = minutes * 60_000
    await new Promise<void>((resolve, reject) => {
      let feeder: ReturnType<typeof setInterval> | null = null
      proc.on('message', (m) => {
        const msg = m as ({ type: 'sample' } & Sample) | { type: 'fills'; fills: Record<string, FillKey[]> }
        if (msg.type === 'fills') return
        const s: Sample = msg
        samples.push(s)
        if (samples.length === 1) {
          coreUpAt = Date.now() - s.t
          // The clock starts once the core is up and the first overview is in.
          feeder = setInterval(() => {
            const a = extra[deposits % extra.length]!
            sandbox.trading.deposit(a.address, 1, BigInt(1 + (deposits % 7)) * 10n ** 8n)
            deposits++
          }, 1000)
        }
        if (samples.length % 15 === 0)
          log(
            `soak ${(s.t / 1000).toFixed(0)} s: rss ${(s.rss / MB).toFixed(1)} MB, heap ${(s.heap / MB).toFixed(1)} MB (${nativeLine(s.native)}; ${s.reentries} re-entries), ${s.pushes} overview pushes; hub ${s.hub}, listeners ${s.listeners} (ws ${s.wsListeners} on ${s.wsSockets} sockets), handles ${s.handles} (timers ${s.timers}, sockets ${s.sockets}), fds ${s.fds}; earn ${s.earn.created} requested / ${s.earn.claimed} claimed / ${s.earn.failed} failed`,
          )
        if (s.t >= durationMs) {
          if (feeder) clearInterval(feeder)
          resolve()
        }
      })
      proc.on('exit', (code) => reject(new Error(`the soak child exited early (code ${code})`)))
    })
    // Fills: the bot stops trading, the last frames land, then the desk's collected fills are fetched.
    sandbox.bot?.pause()
    await new Promise((r) => setTimeout(r, 3000))
    deskFills = await new Promise<Record<string, FillKey[]>>((resolve) => {
      const k = setTimeout(() => resolve({}), 30_000)
      const on = (m: unknown) => {
        const msg = m as { type: string; fills?: Record<string, FillKey[]> }
        if (msg.type !== 'fills') return
        clearTimeout(k)
        proc.off('message', on)
        resolve(msg.fills ?? {})
      }
      proc.on('message', on)
      proc.send('fills')
    })
  } finally {
    proc.removeAllListeners('exit')
    proc.send('stop')
    await new Promise((r) => {
      const k = setTimeout(() => proc.kill('SIGKILL'), 10_000)
      proc.once('exit', () => {
        clearTimeout(k)
        r(null)
      })
    })
    await sandbox.stop()
    rmSync(dataDir, { recursive: true, force: true })
  }
  // Fills exact: every fill the sandbox made for a watched account since the core came up is on
  // the desk with the same price, size and side, and the desk has none the sandbox did not make.
  const fills = fillUsers.map((user) => {
    const truth = sandbox.trading.recentFills(user as Address, 1_000_000).filter((f) => f.time >= coreUpAt)
    const mine = new Map((deskFills[user] ?? []).map((f) => [f.tid, f]))
    const truthTids = new Set(truth.map((f) => String(f.tid)))
    const examples: string[] = []
    let missing = 0
    let different = 0
    for (const f of truth) {
      const d = mine.get(String(f.tid))
      if (!d) {
        missing++
        if (examples.length < 3) examples.push(`missing tid ${f.tid} at ${f.time}`)
      } else if (canon(d.px) !== canon(f.px) || canon(d.sz) !== canon(f.sz) || d.side !== f.side) {
        different++
        if (examples.length < 3) examples.push(`tid ${f.tid}: desk ${d.side} ${d.sz}@${d.px}, sandbox ${f.side} ${f.sz}@${f.px}`)
      }
    }
    const deskInWindow = [...mine.values()].filter((f) => !truthTids.has(f.tid))
    // A desk fill the sandbox does not list in the window: either older than the window (fine, it
    // is in the sandbox's full list) or one the sandbox never made (an error).
    const all = new Set(sandbox.trading.recentFills(user as Address, 1_000_000).map((f) => String(f.tid)))
    const extraFills = deskInWindow.filter((f) => !all.has(f.tid)).length
    return {
      user,
      sandbox: truth.length,
      desk: [...mine.values()].filter((f) => truthTids.has(f.tid)).length,
      missing,
      extra: extraFills,
      different,
      examples,
    }
  })
  const fillsExact = fills.every((f) => f.missing === 0 && f.extra === 0 && f.different === 0 && f.sandbox > 0)
  const end = samples[samples.length - 1]!
  const durationMs = minutes * 60_000
  const long = minutes >= 10
  // Warm-up: the first quarter (short runs) or 5 minutes (long ones) are the core filling its
  // caches, not a leak; every judgement starts after it.
  const warmMs = long ? 5 * 60_000 : durationMs / 4
  const steady = samples.filter((s) => s.t >= warmMs)
  if (steady.length < 8) throw new Error(`the soak took ${steady.length} samples after its warm-up; at least 8 are needed`)
  // Reference: the median of the samples in the first quarter after the warm-up (one sample is a
  // point on the GC's sawtooth); end: the median of the last quarter of the run.
  const span = (durationMs - warmMs) / 4
  const refSet = steady.filter((s) => s.t < warmMs + span)
  const tail = samples.filter((s) => s.t >= durationMs - span)
  const ref = median(refSet.map((s) => s.rss))
  const endRss = median(tail.map((s) => s.rss))
  // Noise: the scatter of RSS around a straight line fitted through the steady samples. A steady
  // leak is the line's slope, not scatter, so it cannot widen its own allowance.
  const fit = linearFit(
    steady.map((s) => s.t),
    steady.map((s) => s.rss),
  )
  const resid = steady.map((s) => (s.rss - (fit.intercept + fit.slope * s.t)) / ref)
  const m = median(resid)
  const scatter = 1.4826 * median(resid.map((x) => Math.abs(x - m)))
  const comparison = `median RSS of the last ${tail.length} samples (${(durationMs - span) / 1000}-${durationMs / 1000} s) over the median of the first ${refSet.length} after a ${warmMs / 1000} s warm-up`
  const figure = fromValue(
    {
      name: `rss_growth_${minutes}min`,
      what: `child core RSS growth under a live sandbox (moving marks, bot trading, ${accounts} accounts${strict ? ', strict limits' : ''}, a deposit a second, earn withdrawals requested and claimed, overview push on): ${comparison}`,
      unit: 'x',
      goal: GROWTH_GOAL,
      better: 'lower',
      clock: 'rss',
    },
    endRss / ref,
    scatter,
    `1.4826 x MAD of the steady samples' residuals around a fitted line, relative to the reference (${steady.length} samples every ${SAMPLE_MS / 1000} s)`,
    steady.map((s) => s.rss / ref),
  )
  // The fitted line's growth across the steady window: every steady sample weighs in, so a leak
  // shows even where the two medians above happen to fall on a GC's trough and peak. Its noise is
  // twice the slope's standard error over the same window.
  const windowMs = durationMs - warmMs
  const projection = fromValue(
    {
      name: `rss_trend_${minutes}min`,
      what: `RSS growth along the line fitted through the steady samples (${((fit.slope * 60_000) / MB).toFixed(2)} MB/min) across the ${windowMs / 1000} s after the warm-up, relative to the reference`,
      unit: 'x',
      goal: GROWTH_GOAL,
      better: 'lower',
      clock: 'rss',
    },
    1 + (fit.slope * windowMs) / ref,
    (2 * fit.slopeSe * windowMs) / ref,
    `2 x the slope's standard error over the window (${steady.length} samples)`,
    steady.map((s) => s.rss / ref),
  )
  // The JS heap after a full collection (the child collects before each sample): RSS also moves
  // with memory the allocator hands back to the system, which can hide a slow leak; the
  // collected heap is what the core's objects hold, judged the same way.
  const heapRef = median(refSet.map((s) => s.heap))
  const heapEnd = median(tail.map((s) => s.heap))
  const heapFit = linearFit(
    steady.map((s) => s.t),
    steady.map((s) => s.heap),
  )
  const heapResid = steady.map((s) => (s.heap - (heapFit.intercept + heapFit.slope * s.t)) / heapRef)
  const hm = median(heapResid)
  const heapFigure = fromValue(
    {
      name: `heap_growth_${minutes}min`,
      what: `child core JS heap after a full collection, same windows: ${comparison}`,
      unit: 'x',
      goal: GROWTH_GOAL,
      better: 'lower',
      clock: 'rss',
    },
    heapEnd / heapRef,
    1.4826 * median(heapResid.map((x) => Math.abs(x - hm))),
    `1.4826 x MAD of the steady heap samples' residuals around a fitted line, relative to the reference (${steady.length} samples)`,
    steady.map((s) => s.heap / heapRef),
  )
  // Resources: the median of the same reference and end windows as memory, and the maximum. A
  // count grew when its end median is above every sample of the reference window: a timer or a
  // socket in flight at one sample is jitter, a level the reference never reached is a leak.
  const keys: (keyof Resources)[] = ['hub', 'listeners', 'wsListeners', 'wsSockets', 'handles', 'timers', 'sockets', 'fds']
  const resources = Object.fromEntries(
    keys.map((k) => [
      k,
      {
        ref: median(refSet.map((s) => s[k])),
        refMax: Math.max(...refSet.map((s) => s[k])),
        end: median(tail.map((s) => s[k])),
        max: Math.max(...steady.map((s) => s[k])),
        series: thin(samples.map((s) => s[k])),
      },
    ]),
  ) as SoakReport['resources']
  const grown = keys.filter((k) => resources[k].end > resources[k].refMax)
  const native = Object.fromEntries(
    NATIVE_KEYS.map((k) => [
      k,
      {
        ref: median(refSet.map((s) => s.native[k])),
        end: median(tail.map((s) => s.native[k])),
        max: Math.max(...steady.map((s) => s.native[k])),
      },
    ]),
  ) as SoakReport['native']
  return {
    minutes,
    comparison,
    accounts,
    strict,
    resources,
    grown,
    native,
    reentries: end.reentries,
    earn: end.earn,
    fills,
    fillsExact,
    samples: samples.map((s) => ({ ...s, rss: Math.round(s.rss / 1024), heap: Math.round(s.heap / 1024) })),
    figure,
    projection,
    heapFigure,
    pushes: end.pushes,
    deposits,
    bot_fills: sandbox.trading.groundTruth().length - fillsBefore,
  }
}

/** At most 30 evenly spaced points of a series (the report shows the shape, not every sample). */
function thin(xs: number[]): number[] {
  if (xs.length <= 30) return xs
  return Array.from({ length: 30 }, (_, i) => xs[Math.round((i * (xs.length - 1)) / 29)]!)
}

const isMain = process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]
if (isMain) {
  const args = process.argv.slice(2)
  if (args[0] === '--child') {
    await child(args[1]!, JSON.parse(args[2]!) as SandboxUrls, JSON.parse(args[3] ?? '[]') as string[])
  } else {
    const i = args.indexOf('--minutes')
    const minutes = i >= 0 ? Number(args[i + 1]) : 1
    const j = args.indexOf('--accounts')
    const accounts = j >= 0 ? Number(args[j + 1]) : ACCOUNTS
    if (!Number.isFinite(minutes) || minutes <= 0 || !Number.isInteger(accounts) || accounts < 7) {
      process.stderr.write(
        'usage: soak --minutes N [--accounts A] [--strict] (N > 0, A >= 7: the six development owners and at least one funded account)\n',
      )
      process.exit(2)
    }
    const quiet = args.includes('--json-only')
    const r = await soak(minutes, quiet ? () => {} : undefined, accounts, args.includes('--strict'))
    const f = r.figure
    const p = r.projection
    if (!quiet) {
      process.stderr.write(
        `soak: ${f.value}x (goal <= ${f.goal}x, noise ±${f.noise}) ${f.verdict}: ${r.comparison}; ${r.pushes} overview pushes, ${r.deposits} deposits, ${r.bot_fills} executed transactions\n`,
      )
      process.stderr.write(
        `soak: heap ${r.heapFigure.value}x (goal <= ${r.heapFigure.goal}x, noise ±${r.heapFigure.noise}) ${r.heapFigure.verdict}\n`,
      )
      process.stderr.write(`soak: trend ${p.value}x (goal <= ${p.goal}x, noise ±${p.noise}) ${p.verdict}: ${p.what}\n`)
      const res = Object.entries(r.resources)
        .map(([k, v]) => `${k} ${v.ref}->${v.end} (max ${v.max})`)
        .join(', ')
      process.stderr.write(
        `soak: resources (reference -> end median): ${res}; ${r.grown.length ? `GREW: ${r.grown.join(', ')}` : 'none grew'}\n`,
      )
      process.stderr.write(
        `soak: native (KiB, reference -> end median): ${Object.entries(r.native)
          .map(([k, v]) => `${k} ${v.ref}->${v.end}`)
          .join(', ')}; ${r.reentries} passphrase re-entries\n`,
      )
      process.stderr.write(
        `soak: earn ${r.earn.created} requested, ${r.earn.claimed} claimed, ${r.earn.failed} failed${r.earn.lastError ? ` (last: ${r.earn.lastError})` : ''}\n`,
      )
      process.stderr.write(
        `soak: fills ${r.fillsExact ? 'exact' : 'NOT exact'}: ${r.fills.map((x) => `${x.user.slice(0, 10)} sandbox ${x.sandbox}, desk ${x.desk}, missing ${x.missing}, extra ${x.extra}, different ${x.different}${x.examples.length ? ` (${x.examples.join('; ')})` : ''}`).join('; ')}\n`,
      )
    }
    process.stdout.write(JSON.stringify(r) + '\n')
    process.exit([f, p, r.heapFigure].some((x) => x.verdict === 'MISSED') || r.grown.length > 0 || !r.fillsExact ? 1 : 0)
  }
}
