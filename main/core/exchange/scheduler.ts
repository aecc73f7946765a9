import { DeskError } from '../errors/desk-error'

/**
 * Client-side rate budget for one service host: a token bucket (the spec's 1 request/s with one
 * second of allowance by default) feeding strict-priority lanes, so a write's own reads never
 * wait behind a screen's read, an operator action never waits behind reconciliation,
 * reconciliation never waits behind the marks refresh, and the marks refresh (which keeps every
 * USD value on screen valid) never waits behind the per-account background reads of a large desk.
 * `overdue` is strict mode's refresher reading a polled account's balances past their age bound
 * (rationed by the refresher): ahead of the one-off background reads of a start (identities,
 * agent slots, the alerts pass), which would otherwise hold every balance for minutes.
 */
export type Lane = 'write' | 'operator' | 'reconcile' | 'marks' | 'overdue' | 'background'

/** Lanes in dispatch order: a queued task of an earlier lane always starts first. */
export const LANES: readonly Lane[] = ['write', 'operator', 'reconcile', 'marks', 'overdue', 'background']

/** One request leaving the budget: which lane, what it was, how long it waited for its turn. */
export interface DispatchEvent {
  scheduler: string
  lane: Lane
  label: string
  queuedAt: number
  startedAt: number
}

const dispatchListeners = new Set<(e: DispatchEvent) => void>()

/**
 * Observes every request any scheduler of this process starts (benchmarks and tests prove with
 * it which reads a write waited for). Returns the unsubscribe.
 */
export function onDispatch(listener: (e: DispatchEvent) => void): () => void {
  dispatchListeners.add(listener)
  return () => dispatchListeners.delete(listener)
}

/** Handed to a task when it starts. */
export interface TaskControl {
  /**
   * The task's request is wholly on its socket now (handed to the operating system): with a
   * `socketBoundMs`, it counts as having reached the service by that long after, if not answered
   * sooner. A task that never calls it keeps the arrival bound counted from its start.
   */
  onSocket(): void
}

export interface RateSchedulerOptions {
  /** Requests per second the bucket refills with (> 0). */
  ratePerSec: number
  /** Bucket capacity in requests; defaults to one second of allowance (at least 1). */
  burst?: number
  /** Clock in ms; defaults to Date.now (fake timers replace it in tests). */
  now?: () => number
  /**
   * Extra wait (ms) before a request that had to wait for a token. The service's bucket counts
   * from when a request arrives, ours from when it left: without a margin, network jitter makes
   * the next request land a few ms early, and a `RateLimited` costs a whole second.
   */
  marginMs?: number
  /** Name in dispatch events (e.g. `info http://127.0.0.1:1234`). */
  name?: string
  /**
   * A request still unanswered this long after it left is counted as having reached the
   * service by then (default: only its answer proves it), so one slow call (a /trade that waits
   * out the service's 3 s budget) does not hold every other request of the host behind it.
   */
  arrivalBoundMs?: number
  /**
   * A request its task reported on its socket (`TaskControl.onSocket`) and still unanswered
   * this long after is counted as having reached the service by then. Counted from the socket,
   * not from the start: what the desk does before the bytes leave (the journal's `sent` mark on
   * disk, a busy event loop, the connection) can take 100 ms and more, but delays only the
   * request itself, never its arrival relative to that moment. Default: none.
   */
  socketBoundMs?: number
}

export interface SchedulerStats {
  queued: Record<Lane, number>
  tokens: number
  /** Requests started and not answered yet. */
  inFlight: number
  pausedForMs: number
  ratePerSec: number
  burst: number
}

interface Entry {
  lane: Lane
  label: string
  queuedAt: number
  task: (control: TaskControl) => Promise<unknown>
  resolve: (value: unknown) => void
  reject: (reason: unknown) => void
}

function checkRate(ratePerSec: number, burst: number | undefined): { rate: number; burst: number } {
  if (typeof ratePerSec !== 'number' || !Number.isFinite(ratePerSec) || ratePerSec <= 0) {
    throw new DeskError('InvalidRateBudget', `rate must be a positive number of requests per second, got ${String(ratePerSec)}`)
  }
  const b = burst ?? Math.max(1, ratePerSec)
  if (typeof b !== 'number' || !Number.isFinite(b) || b < 1) {
    throw new DeskError('InvalidRateBudget', `burst must be at least 1 request, got ${String(burst)}`)
  }
  return { rate: ratePerSec, burst: b }
}

export class RateScheduler {
  private rate: number
  private capacity: number
  private tokens: number
  private last: number
  private pausedUntil = 0
  private readonly now: () => number
  private readonly marginMs: number
  private readonly queues: Record<Lane, Entry[]> = { write: [], operator: [], reconcile: [], marks: [], overdue: [], background: [] }
  private readonly name: string
  private timer: ReturnType<typeof setTimeout> | undefined
  private timerAt = Infinity
  private closed: DeskError | undefined
  /**
   * The service's bucket as it must at worst be: each answered request counted as taken when its
   * answer came back (the service took its token before answering, so never later than that),
   * each unanswered one as still about to take one. A request leaves only when this bucket holds a
   * token for it and for every request still in flight: whatever the delays between this process
   * and the service, the service never sees two requests closer than its budget allows.
   */
  private answered = 0
  private answeredAt: number
  private inFlight = 0
  private readonly arrivalBoundMs: number
  private readonly socketBoundMs: number

  constructor(opts: RateSchedulerOptions) {
    const { rate, burst } = checkRate(opts.ratePerSec, opts.burst)
    this.rate = rate
    this.capacity = burst
    this.now = opts.now ?? (() => Date.now())
    this.marginMs = opts.marginMs ?? 0
    this.name = opts.name ?? ''
    this.arrivalBoundMs = opts.arrivalBoundMs ?? Infinity
    this.socketBoundMs = opts.socketBoundMs ?? Infinity
    this.tokens = burst
    this.last = this.now()
    this.answered = burst
    this.answeredAt = this.last
  }

  /** Queues `task` in `lane`; it starts when the budget allows and no higher lane is waiting. */
  run<T>(lane: Lane, task: (control: TaskControl) => Promise<T>, label = ''): Promise<T> {
    if (!LANES.includes(lane)) return Promise.reject(new DeskError('InvalidLane', `unknown scheduler lane "${String(lane)}"`))
    if (this.closed) return Promise.reject(this.closed)
    return new Promise<T>((resolve, reject) => {
      this.queues[lane].push({ lane, label, queuedAt: this.now(), task, resolve: resolve as (v: unknown) => void, reject })
      this.pump()
    })
  }

  /**
   * Honours a server `RateLimited` delay: nothing starts for `ms`, then exactly one request may
   * go (the server said a token is available by then) and the bucket refills from there.
   */
  pauseFor(ms: number): void {
    if (typeof ms !== 'number' || !Number.isFinite(ms) || ms < 0) return
    const until = this.now() + ms
    if (until > this.pausedUntil) this.pausedUntil = until
    this.tokens = Math.min(1, this.capacity)
    this.last = Math.max(this.last, this.pausedUntil)
    // The service counted from its refusal, before this answer arrived: one token by then.
    this.answered = Math.min(1, this.capacity)
    this.answeredAt = Math.max(this.answeredAt, this.pausedUntil)
    this.pump()
  }

  /** Raises or lowers the budget (per-network settings); queued tasks keep their order. */
  setRate(ratePerSec: number, burst?: number): void {
    this.refill()
    const r = checkRate(ratePerSec, burst)
    this.rate = r.rate
    this.capacity = r.burst
    this.tokens = Math.min(this.tokens, this.capacity)
    this.answered = Math.min(this.answeredLevel(this.now()), this.capacity)
    this.answeredAt = Math.max(this.answeredAt, this.now())
    this.pump()
  }

  stats(): SchedulerStats {
    this.refill()
    return {
      queued: {
        write: this.queues.write.length,
        operator: this.queues.operator.length,
        reconcile: this.queues.reconcile.length,
        marks: this.queues.marks.length,
        overdue: this.queues.overdue.length,
        background: this.queues.background.length,
      },
      tokens: this.tokens,
      inFlight: this.inFlight,
      pausedForMs: Math.max(0, this.pausedUntil - this.now()),
      ratePerSec: this.rate,
      burst: this.capacity,
    }
  }

  /** Rejects every queued task with `SchedulerClosed`; tasks already started run to completion. */
  close(): void {
    if (this.closed) return
    this.closed = new DeskError('SchedulerClosed', 'the request scheduler was shut down before this request was sent')
    if (this.timer) clearTimeout(this.timer)
    this.timer = undefined
    for (const lane of LANES) {
      for (const e of this.queues[lane].splice(0)) e.reject(this.closed)
    }
  }

  private refill(): void {
    const t = this.now()
    if (t > this.last) {
      // The margin slows the refill too (a token every 1000/rate + margin ms), not only the wait
      // of a queued task: a request arriving just as the bucket refills would otherwise leave
      // with no margin against the service's bucket, and any delay of the one before it (a busy
      // event loop before its socket write) makes the service see them closer than 1/rate.
      this.tokens = Math.min(this.capacity, this.tokens + (t - this.last) / (1000 / this.rate + this.marginMs))
      this.last = t
    }
  }

  /** The worst-case service bucket at `t` (answered requests only). */
  private answeredLevel(t: number): number {
    if (t <= this.answeredAt) return this.answered
    return Math.min(this.capacity, this.answered + ((t - this.answeredAt) * this.rate) / 1000)
  }

  /** A request was answered (or failed), or its arrival bound passed, at `t`: the service took its token by then at the latest. */
  private settled(t: number): void {
    this.answered = this.answeredLevel(t) - 1
    this.answeredAt = Math.max(this.answeredAt, t)
    this.inFlight--
    this.pump()
  }

  private next(): Entry | undefined {
    for (const lane of LANES) {
      const e = this.queues[lane].shift()
      if (e) return e
    }
    return undefined
  }

  private hasQueued(): boolean {
    return LANES.some((l) => this.queues[l].length > 0)
  }

  private pump(): void {
    if (this.closed) return
    for (;;) {
      if (!this.hasQueued()) return
      const t = this.now()
      if (t < this.pausedUntil) return this.wake(this.pausedUntil - t)
      this.refill()
      // (less a hair: float error must not round 20 ms up to 21)
      if (this.tokens < 1) return this.wake(Math.ceil((1 - this.tokens) * (1000 / this.rate + this.marginMs) - 1e-6))
      // A token for this request and one for each still in flight (they may reach the service
      // after it); more than the capacity in flight waits for an answer (which pumps again).
      const need = this.inFlight + 1
      if (need > this.capacity) return
      const have = this.answeredLevel(t)
      if (have < need) return this.wake(Math.ceil(((need - have) * 1000) / this.rate - 1e-6))
      this.tokens -= 1
      this.inFlight++
      const e = this.next()!
      if (dispatchListeners.size > 0) {
        const ev: DispatchEvent = { scheduler: this.name, lane: e.lane, label: e.label, queuedAt: e.queuedAt, startedAt: t }
        for (const l of dispatchListeners) l(ev)
      }
      // Started on a microtask so a synchronous throw inside the task becomes a rejection.
      // Counted once: at its answer, or at its arrival bound if that comes first (counted at the
      // bound itself, not when a late timer fires).
      let counted = false
      let bound: ReturnType<typeof setTimeout> | undefined
      let arriveBy = Infinity
      const count = (at: number) => {
        if (counted) return
        counted = true
        if (bound) clearTimeout(bound)
        this.settled(at)
      }
      const boundAt = (at: number) => {
        if (counted || !(at < arriveBy)) return
        arriveBy = at
        if (bound) clearTimeout(bound)
        bound = setTimeout(() => count(at), Math.max(0, at - this.now()))
      }
      boundAt(t + this.arrivalBoundMs)
      const control: TaskControl = { onSocket: () => boundAt(this.now() + this.socketBoundMs) }
      // Settled before the caller hears: a pauseFor it calls on a refusal then counts from here.
      Promise.resolve()
        .then(() => e.task(control))
        .then(
          (v) => {
            count(this.now())
            e.resolve(v)
          },
          (err: unknown) => {
            count(this.now())
            e.reject(err)
          },
        )
    }
  }

  private wake(ms: number): void {
    const at = this.now() + Math.max(1, ms)
    if (this.timer && this.timerAt <= at) return
    if (this.timer) clearTimeout(this.timer)
    this.timerAt = at
    this.timer = setTimeout(
      () => {
        this.timer = undefined
        this.timerAt = Infinity
        this.pump()
      },
      Math.max(1, ms),
    )
  }
}

export type ServiceKind = 'info' | 'trade' | 'earn'

/**
 * One scheduler per (host, API): every client of the same host and API shares its budget, as
 * the service's per-IP buckets do (/info and /trade are independent budgets).
 */
/** The margin the desk keeps against the service's buckets (about 2% at 1 request/s). */
export const HOST_MARGIN_MS = 20
/**
 * How late a request may reach the service after it left (a busy machine, the network): past
 * this, an unanswered one is counted as arrived (trading-api §8: /trade calls can take 10 s).
 */
export const ARRIVAL_BOUND_MS = 2_000
/**
 * /trade: a write on its socket and unanswered this long after is counted as having reached the
 * service (its token taken). The service takes the token when the request arrives, before any
 * check, and answers only after the block that executes it (a block or two, trading-api §4), so
 * counting from the answer kept every back-to-back write 50-250 ms behind the service's bucket.
 * Measured against the sandbox (writes bench, load average 5-10 on 2 cores): socket to token
 * p50 1 ms, worst 54 ms; this keeps twice that.
 */
export const TRADE_SOCKET_BOUND_MS = 100

export class HostSchedulers {
  private readonly byKey = new Map<string, RateScheduler>()
  private closed = false

  constructor(private readonly now?: () => number) {}

  get(url: string, kind: ServiceKind, ratePerSec: number): RateScheduler {
    let origin: string
    try {
      origin = new URL(url).origin
    } catch {
      throw new DeskError('InvalidUrl', `not a URL: ${url}`)
    }
    const key = `${kind} ${origin}`
    const existing = this.byKey.get(key)
    if (existing) {
      if (existing.stats().ratePerSec !== ratePerSec) existing.setRate(ratePerSec)
      return existing
    }
    const s = new RateScheduler({
      ratePerSec,
      marginMs: HOST_MARGIN_MS,
      arrivalBoundMs: ARRIVAL_BOUND_MS,
      ...(kind === 'trade' ? { socketBoundMs: TRADE_SOCKET_BOUND_MS } : {}),
      name: key,
      ...(this.now ? { now: this.now } : {}),
    })
    this.byKey.set(key, s)
    // Closed for good: a pass still finishing during close must not get a fresh budget to send on.
    if (this.closed) s.close()
    return s
  }

  closeAll(): void {
    this.closed = true
    for (const s of this.byKey.values()) s.close()
  }
}
