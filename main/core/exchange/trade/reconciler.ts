import type { Journal, Submission } from '../../journal'
import type { TradeEnvelope } from '../../wire'
import type { Lane } from '../scheduler'
import { adviceForCode as adviceFor } from '../../../contract/advice'
import { earliestOf, OutcomeEvidence, type QueryWindow, type TradeReads } from './reconcile-evidence'
import type { SchedulerLike } from './submitter'

export { LOOKBACK_BLOCKS, NONCE_MAX_AGE_MS, type OrderStatusRead, type QueryWindow, type TradeReads } from './reconcile-evidence'

export interface TradeReconcilerOptions {
  network: string
  journal: Journal
  reads: TradeReads
  /** Wraps each read (the `reconcile` lane of the /info scheduler) when `reads` does not schedule itself. */
  scheduler?: SchedulerLike
  now?: () => number
  /** Margin on the local clock when the service's block time is not known. Default 30 s. */
  expiryGraceMs?: number
  /** Leave entries younger than this alone (another process may be sending them). Default 20 s. */
  minAgeMs?: number
  /** Ids being sent by this process right now (TradeSubmitter.inFlight). */
  inFlight?: ReadonlySet<number>
  /** Told about entries that ended unresolved (needs an operator). */
  onUnresolved?: (s: Submission) => void
}

export interface ReconcilePass {
  checked: number
  resolved: number
  pending: number
  failed: number
}

/** What was looked at when an outcome could not be settled (journaled as JSON in `evidence`). */
export interface UnresolvedEvidence {
  checkedAtMs: number
  submitHeight: string | null
  expiresAfterMs: string | null
  window: { height: string | null; timeMs: number | null; earliestRetainedHeight: string | null }
  /** One line per read: what was asked and what came back. */
  checks: string[]
}

/**
 * Drives journal entries whose outcome was lost to a final state by reading the exchange. It
 * declares "not executed" only while the write is provably inside txStatusByCloid's lookback
 * window (the height journaled before sending is at or above the earliest retained height) and
 * can no longer execute; anything the evidence does not settle ends `unresolved`, with what
 * was checked and what the operator should check. Nothing is ever re-signed.
 */
export class TradeReconciler {
  private readonly now: () => number
  private readonly grace: number
  private readonly minAge: number
  private timer: ReturnType<typeof setTimeout> | undefined
  private running: Promise<ReconcilePass> | undefined
  private stopped = true
  private intervalMs = 2000
  private window: Promise<QueryWindow> | undefined
  private readonly evidence: OutcomeEvidence

  constructor(private readonly o: TradeReconcilerOptions) {
    this.now = o.now ?? Date.now
    this.grace = o.expiryGraceMs ?? 30_000
    this.minAge = o.minAgeMs ?? 20_000
    this.evidence = new OutcomeEvidence({ reads: o.reads, read: (task) => this.read(task), now: () => this.now(), grace: this.grace })
  }

  private read<T>(task: () => Promise<T>, lane: Lane = 'reconcile'): Promise<T> {
    return this.o.scheduler ? this.o.scheduler.run(lane, task) : task()
  }

  /** One pass over the unresolved entries of this network (concurrent calls share the pass). */
  reconcileOnce(): Promise<ReconcilePass> {
    this.running ??= this.pass().finally(() => (this.running = undefined))
    return this.running
  }

  /** Runs passes for ever on its period (faster while something is pending) until stop(). */
  start(intervalMs = 2000): void {
    this.stopped = false
    this.intervalMs = intervalMs
    this.schedule(0)
  }

  private schedule(delayMs: number): void {
    if (this.stopped) return
    if (this.timer) clearTimeout(this.timer)
    this.timer = setTimeout(() => void this.tick(), delayMs)
  }

  private async tick(): Promise<void> {
    this.timer = undefined
    if (this.stopped) return
    let pending: number
    try {
      pending = (await this.reconcileOnce()).pending
    } catch {
      pending = 1
    }
    // Always reschedule: whatever started this pass (the period or a kick), the period goes on.
    if (!this.stopped && !this.timer) this.schedule(pending > 0 ? this.intervalMs : this.intervalMs * 5)
  }

  /** Reconnected or an entry became unknown: run a pass soon; the periodic schedule continues after it. */
  kick(): void {
    if (this.stopped) return
    this.schedule(0)
  }

  /** True while the background loop is scheduled (for tests and status). */
  get scheduled(): boolean {
    return this.timer !== undefined || this.running !== undefined
  }

  async stop(): Promise<void> {
    this.stopped = true
    if (this.timer) clearTimeout(this.timer)
    this.timer = undefined
    await this.running?.catch(() => undefined)
  }

  private async pass(): Promise<ReconcilePass> {
    const out: ReconcilePass = { checked: 0, resolved: 0, pending: 0, failed: 0 }
    const entries = this.o.journal.unresolved(this.o.network).filter((s) => s.channel === 'trade')
    this.window = undefined // one queryStatus per pass, read only when needed
    for (const s of entries) {
      if (this.o.inFlight?.has(s.id)) continue
      if (s.state !== 'unknown' && this.now() - s.updatedAt < this.minAge) {
        out.pending++
        continue
      }
      out.checked++
      try {
        const done = await this.reconcileEntry(s)
        if (done) out.resolved++
        else out.pending++
      } catch {
        out.failed++
        out.pending++
      }
    }
    return out
  }

  private queryWindow(): Promise<QueryWindow> {
    this.window ??= this.read(() => this.o.reads.queryStatus()).catch((e: unknown) => {
      this.window = undefined
      throw e
    })
    return this.window
  }

  /** Resolves one entry if its outcome can be known now; returns true when it left the reconciler's list. */
  async reconcileEntry(s: Submission): Promise<boolean> {
    const j = this.o.journal
    if (s.state === 'signed') {
      // The `sent` mark precedes every send, so this entry never left the process.
      j.update(s.id, { state: 'reconciled', finalStatus: 'notsent', note: 'never sent (interrupted before sending)' })
      return true
    }
    if (s.state === 'sent') s = j.update(s.id, { state: 'unknown', note: 'no answer recorded (interrupted while sending)' })
    const env = JSON.parse(s.body) as TradeEnvelope
    const window = await this.queryWindow()
    const ctx = this.evidence.context(s, env, window)
    const v = await this.evidence.verdict(ctx)
    switch (v.kind) {
      case 'pending':
        return false
      case 'executed':
        j.update(s.id, { state: 'reconciled', finalStatus: v.status, note: v.note })
        return true
      case 'failed':
        j.update(s.id, { state: 'failed', finalStatus: 'failed', code: v.code, advice: adviceFor(v.code), note: v.note })
        return true
      case 'notexecuted':
        j.update(s.id, { state: 'reconciled', finalStatus: 'notexecuted', note: v.note })
        return true
      case 'unresolved': {
        const evidence: UnresolvedEvidence = {
          checkedAtMs: this.now(),
          submitHeight: s.submitHeight,
          expiresAfterMs: env.expires_after_ms ?? null,
          window: {
            height: window.height?.toString() ?? null,
            timeMs: window.timeMs,
            earliestRetainedHeight: earliestOf(window)?.toString() ?? null,
          },
          checks: ctx.checks,
        }
        const u = j.update(s.id, {
          state: 'unresolved',
          finalStatus: 'unresolved',
          evidence: JSON.stringify(evidence),
          advice: v.advice,
          note: v.reason,
        })
        this.o.onUnresolved?.(u)
        return true
      }
    }
  }
}
