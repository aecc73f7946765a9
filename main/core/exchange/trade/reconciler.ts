import type { Journal, Submission } from '../../journal'
import type { TradeEnvelope } from '../../wire'
import type { Lane } from '../scheduler'
import type { SchedulerLike } from './submitter'

/** The /info reads reconciliation needs (H5's typed client or the small one in reads.ts). */
export interface TradeReads {
  txStatusByCloid(user: string, cloid: string): Promise<{ found: boolean; status: string | null; actionType: string | null }>
  orderStatus(q: { user: string; marketId: string; cloid: string } | { oid: string }): Promise<{ found: boolean; status: string | null; filledQty: string | null }>
  userAgents(user: string): Promise<{ slotId: number; agent: string | null; epoch: string | null }[]>
  openOrders(user: string, marketId: string): Promise<{ oid: string; cloid: string | null }[]>
}

/** Transaction statuses meaning "executed without an error". */
const SUCCESS = new Set(['ok', 'success', 'committed', 'executed', 'accepted'])

export interface TradeReconcilerOptions {
  network: string
  journal: Journal
  reads: TradeReads
  /** Wraps each read (the `reconcile` lane of the /info scheduler) when `reads` does not schedule itself. */
  scheduler?: SchedulerLike
  now?: () => number
  /** After an envelope's expiry plus this margin, "not found" means never executed. Default 30 s (clock skew). */
  expiryGraceMs?: number
  /** Leave entries younger than this alone (another process may be sending them). Default 20 s. */
  minAgeMs?: number
  /** Ids being sent by this process right now (TradeSubmitter.inFlight). */
  inFlight?: ReadonlySet<number>
}

export interface ReconcilePass {
  checked: number
  resolved: number
  pending: number
  failed: number
}

type Verdict = { final: true; status: string; code: string | null; note: string } | { final: false }

/**
 * Drives unresolved /trade journal entries to a final state: by `txStatusByCloid` (and
 * `orderStatus` for orders), or, for actions that carry no cloid, by their visible effect
 * once the envelope has expired. Nothing is ever re-signed.
 */
export class TradeReconciler {
  private readonly now: () => number
  private readonly grace: number
  private readonly minAge: number
  private timer: ReturnType<typeof setTimeout> | undefined
  private running: Promise<ReconcilePass> | undefined
  private stopped = true

  constructor(private readonly o: TradeReconcilerOptions) {
    this.now = o.now ?? Date.now
    this.grace = o.expiryGraceMs ?? 30_000
    this.minAge = o.minAgeMs ?? 20_000
  }

  private read<T>(task: () => Promise<T>, lane: Lane = 'reconcile'): Promise<T> {
    return this.o.scheduler ? this.o.scheduler.run(lane, task) : task()
  }

  /** One pass over the unresolved entries of this network (concurrent calls share the pass). */
  reconcileOnce(): Promise<ReconcilePass> {
    this.running ??= this.pass().finally(() => (this.running = undefined))
    return this.running
  }

  /** Runs passes until nothing is left unresolved, checking every `intervalMs`. */
  start(intervalMs = 2000): void {
    this.stopped = false
    const tick = async () => {
      if (this.stopped) return
      let pending: number
      try {
        pending = (await this.reconcileOnce()).pending
      } catch {
        pending = 1
      }
      if (!this.stopped) this.timer = setTimeout(tick, pending > 0 ? intervalMs : intervalMs * 5)
    }
    void tick()
  }

  /** Reconnected or an entry became unknown: run a pass soon. */
  kick(): void {
    if (this.stopped) return
    if (this.timer) clearTimeout(this.timer)
    this.timer = setTimeout(() => void this.reconcileOnce().catch(() => undefined), 0)
  }

  async stop(): Promise<void> {
    this.stopped = true
    if (this.timer) clearTimeout(this.timer)
    await this.running?.catch(() => undefined)
  }

  private async pass(): Promise<ReconcilePass> {
    const out: ReconcilePass = { checked: 0, resolved: 0, pending: 0, failed: 0 }
    const entries = this.o.journal.unresolved(this.o.network).filter((s) => s.channel === 'trade')
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

  /** Resolves one entry if its outcome can be known now; returns true when it became final. */
  async reconcileEntry(s: Submission): Promise<boolean> {
    const j = this.o.journal
    if (s.state === 'signed') {
      // The `sent` mark precedes every send, so this entry never left the process.
      j.update(s.id, { state: 'reconciled', finalStatus: 'notsent', note: 'never sent (interrupted before sending)' })
      return true
    }
    if (s.state === 'sent') j.update(s.id, { state: 'unknown', note: 'no answer recorded (interrupted while sending)' })
    const env = JSON.parse(s.body) as TradeEnvelope
    const expired = this.now() > Number(env.expires_after_ms ?? Number.MAX_SAFE_INTEGER) + this.grace
    const v = await this.verdict(s, env, expired)
    if (!v.final) return false
    j.update(s.id, { state: 'reconciled', finalStatus: v.status, code: v.code ?? s.code, note: v.note })
    return true
  }

  private async verdict(s: Submission, env: TradeEnvelope, expired: boolean): Promise<Verdict> {
    const a = env.action
    const notExecuted: Verdict = { final: true, status: 'notexecuted', code: null, note: 'envelope expired without a trace of execution' }
    const cloid = cloidOf(env)
    if (cloid) {
      const tx = await this.read(() => this.o.reads.txStatusByCloid(s.signer, cloid))
      if (tx.found && tx.status) {
        if (!SUCCESS.has(tx.status)) return { final: true, status: tx.status, code: tx.status, note: 'txStatusByCloid: executed with an error' }
        if (a.type === 'order' || a.type === 'modify') {
          const os = await this.read(() => this.o.reads.orderStatus({ user: s.account, marketId: a.market_id, cloid }))
          if (os.found && os.status) return { final: true, status: os.status, code: null, note: `txStatusByCloid ${tx.status}; orderStatus ${os.status}` }
        }
        return { final: true, status: tx.status, code: null, note: 'txStatusByCloid: executed' }
      }
      if (a.type === 'order' || a.type === 'modify') {
        // A resting or filled order is visible here even when the tx record aged out.
        const os = await this.read(() => this.o.reads.orderStatus({ user: s.account, marketId: a.market_id, cloid }))
        if (os.found && os.status) return { final: true, status: os.status, code: null, note: `orderStatus ${os.status}` }
      }
      return expired ? notExecuted : { final: false }
    }
    // No cloid to look up: judge by the effect, once the envelope can no longer execute.
    if (!expired) return { final: false }
    switch (a.type) {
      case 'cancel': {
        if (a.oid === undefined) return notExecuted
        const oid = a.oid
        const os = await this.read(() => this.o.reads.orderStatus({ oid }))
        const gone = os.found && os.status !== 'open' && os.status !== 'partiallyfilledresting'
        return { final: true, status: gone ? (os.status ?? 'closed') : 'notexecuted', code: null, note: `orderStatus of oid ${oid}: ${os.status ?? 'not found'}` }
      }
      case 'cancelAll': {
        const open = await this.read(() => this.o.reads.openOrders(s.account, a.market_id))
        return { final: true, status: open.length === 0 ? 'nothingopen' : 'ordersstillopen', code: null, note: `open orders in market ${a.market_id} after expiry: ${open.length}` }
      }
      case 'approveAgent':
      case 'revokeAgent': {
        const agents = await this.read(() => this.o.reads.userAgents(s.account))
        const slot = agents.find((x) => x.slotId === a.slot_id)
        const effect = a.type === 'approveAgent' ? slot?.agent?.toLowerCase() === a.agent.toLowerCase() : !slot?.agent
        return { final: true, status: effect ? 'executed' : 'notexecuted', code: null, note: `userAgents slot ${a.slot_id}: ${slot?.agent ?? 'empty'}` }
      }
      default:
        return notExecuted
    }
  }
}

/** The cloid a transaction can be looked up by (first order/modify item of a batch). */
export function cloidOf(env: TradeEnvelope): string | null {
  const a = env.action
  switch (a.type) {
    case 'order':
    case 'transfer':
    case 'activateFor':
    case 'withdraw':
    case 'settle':
    case 'repay':
      return a.cloid ?? null
    case 'modify':
      return a.replacement.cloid ?? null
    case 'batch':
      for (const it of a.items) {
        if (it.type === 'order' && it.cloid) return it.cloid
        if (it.type === 'modify' && it.replacement.cloid) return it.replacement.cloid
      }
      return null
    default:
      return null
  }
}
