import type { Submission } from '../../journal'
import type { TradeEnvelope } from '../../wire'
import { BENIGN_CLOSE_CODES } from '../../../contract/advice'

export interface OrderStatusRead {
  found: boolean
  status: string | null
  filledQty: string | null
}

/** The service's view window: what txStatusByCloid / orderStatus can still see. */
export interface QueryWindow {
  /** Latest block height and its time (block time bounds whether an envelope can still execute). */
  height: bigint | null
  timeMs: number | null
  /** Oldest height whose transactions and status records are still retained. */
  earliestRetainedHeight: bigint | null
}

/** The /info reads reconciliation needs (over the typed client in info-reads.ts, or reads.ts). */
export interface TradeReads {
  txStatusByCloid(user: string, cloid: string): Promise<{ found: boolean; status: string | null; actionType: string | null }>
  orderStatus(q: { user: string; marketId: string; cloid: string } | { oid: string }): Promise<OrderStatusRead>
  userAgents(user: string): Promise<{ slotId: number; agent: string | null; epoch: string | null }[]>
  openOrders(user: string, marketId: string): Promise<{ oid: string; cloid: string | null }[]>
  queryStatus(): Promise<QueryWindow>
  /** Business nonces of the user's retained withdraw records (3-day window); optional evidence. */
  withdrawNonces?(user: string): Promise<string[]>
}

/** Transaction statuses meaning "executed without an error"; any other status is an execution error code. */
const SUCCESS = new Set(['ok', 'success', 'committed', 'executed', 'accepted'])
/** Order statuses of an order that reached the book or closed benignly (it may have traded). */
const ORDER_OK = new Set(['open', 'partiallyfilledresting', 'filled', 'cancelled', ...BENIGN_CLOSE_CODES])
const STILL_OPEN = new Set(['open', 'partiallyfilledresting'])
/** How the journal note of a lost cancel judged by its still-open target begins. */
export const CANCEL_NO_EFFECT = 'the cancel took no effect'
/** Spec: `txStatusByCloid` keeps 10000 blocks; used when queryStatus names no earliest height. */
export const LOOKBACK_BLOCKS = 10_000n
/** Spec §4 nonce rules: execution accepts nonces no older than block time minus 2 days. */
export const NONCE_MAX_AGE_MS = 2 * 24 * 3600_000
/** Spec: `/info withdraws` keeps 3 days of records. */
const WITHDRAWS_RETENTION_MS = 3 * 24 * 3600_000

export type Verdict =
  | { kind: 'executed'; status: string; note: string }
  | { kind: 'failed'; code: string; note: string }
  | { kind: 'notexecuted'; note: string }
  | { kind: 'unresolved'; reason: string; advice: string }
  | { kind: 'pending' }

/** Per-entry context: the window, whether the envelope can still execute, what was checked. */
export interface Ctx {
  s: Submission
  env: TradeEnvelope
  window: QueryWindow
  /** The envelope can no longer execute (block time, or local clock plus grace, past its expiry). */
  dead: boolean
  /**
   * The reads of this pass see a state after the last moment the envelope could execute: the
   * service's query view is at a block past it (or, when the service names no block time, the
   * envelope is dead by the local clock). What is still open there was not closed by it.
   */
  settled: boolean
  /** Any execution of this write would still be visible to txStatusByCloid / orderStatus. */
  inWindow: boolean
  checks: string[]
}

/** What the evidence reads go through: the /info reads (each wrapped in the reconcile lane), the clock, the expiry grace. */
export interface EvidenceDeps {
  reads: TradeReads
  read<T>(task: () => Promise<T>): Promise<T>
  now(): number
  /** Margin on the local clock when the service's block time is not known. */
  grace: number
}

/**
 * The evidence side of reconciliation: reads what the exchange shows of one journaled write
 * (by cloid, order status, open orders, agent slots, withdraw records), records every read in
 * the context's checks, and gives a verdict. It never writes the journal.
 */
export class OutcomeEvidence {
  constructor(private readonly d: EvidenceDeps) {}

  context(s: Submission, env: TradeEnvelope, window: QueryWindow): Ctx {
    const expires = lastExecutableMs(env)
    // The service checks expiry against block time: once the latest block is past it, no later block can run it.
    const viewPast = window.timeMs !== null && window.timeMs > expires
    const dead = viewPast || this.d.now() > expires + this.d.grace
    const earliest = earliestOf(window)
    const inWindow = s.submitHeight !== null && earliest !== null && BigInt(s.submitHeight) >= earliest
    return { s, env, window, dead, settled: window.timeMs !== null ? viewPast : dead, inWindow, checks: [] }
  }

  /**
   * A cancel whose target is still open where the envelope can no longer execute did not take
   * effect: had it run with success, the target would be cancelled. The target was open when the
   * cancel was signed (the orders service refuses a cancel of an order the exchange does not
   * list as open), so it was there whenever the cancel could execute. Final `notexecuted` (the
   * operator may cancel again), with a note that says what is proven and what is not: a cancel
   * that ran and failed inside its block looks the same, since the exchange keeps no record of a
   * cancel without a cloid of its own. No lookback window is needed: open orders are always visible.
   */
  private openTarget(c: Ctx, effects: ItemEffect[]): Verdict | null {
    const open = effects.filter((e) => e.kind === 'open' && e.cancelTarget)
    if (open.length === 0) return null
    if (!c.settled) return { kind: 'pending' }
    return {
      kind: 'notexecuted',
      note:
        `${CANCEL_NO_EFFECT}: the envelope can no longer execute and its target is still open (${open.map((e) => e.word).join(', ')}); whether ` +
        `it never ran or ran and failed inside its block, the exchange does not record`,
    }
  }

  private async tx(c: Ctx, cloid: string) {
    const tx = await this.d.read(() => this.d.reads.txStatusByCloid(c.s.signer, cloid))
    c.checks.push(`txStatusByCloid(${c.s.signer}, ${cloid}): ${tx.found ? `found, status ${tx.status ?? 'null'}` : 'not found'}`)
    return tx
  }

  private async order(c: Ctx, q: { user: string; marketId: string; cloid: string } | { oid: string }): Promise<OrderStatusRead> {
    const os = await this.d.read(() => this.d.reads.orderStatus(q))
    const what = 'oid' in q ? `oid ${q.oid}` : `cloid ${q.cloid} in market ${q.marketId}`
    c.checks.push(`orderStatus(${what}): ${os.found ? `${os.status ?? 'null'}, filled ${os.filledQty ?? '?'}` : 'not found'}`)
    return os
  }

  /** Not found anywhere: not executed only when provably inside the window and unable to execute. */
  private absent(c: Ctx, advice: string): Verdict {
    if (!c.dead) return { kind: 'pending' }
    if (c.inWindow)
      return {
        kind: 'notexecuted',
        note:
          `no trace by cloid while inside the lookback window (sent at or after height ${c.s.submitHeight}, earliest retained ` +
          `${earliestOf(c.window)}); the envelope expired`,
      }
    const why =
      c.s.submitHeight === null
        ? 'no height was journaled before sending, so the lookback window cannot be proven'
        : `sent at or after height ${c.s.submitHeight}, but the service only retains heights from ${earliestOf(c.window) ?? 'an unknown height'}`
    return { kind: 'unresolved', reason: `no trace found and ${why}`, advice }
  }

  async verdict(c: Ctx): Promise<Verdict> {
    const a = c.env.action
    const acct = c.s.account
    switch (a.type) {
      case 'settle':
      case 'repay':
      case 'transfer':
      case 'withdraw':
      case 'activateFor': {
        const tx = await this.tx(c, a.cloid!)
        if (tx.found && tx.status) {
          if (SUCCESS.has(tx.status)) return { kind: 'executed', status: 'success', note: `txStatusByCloid: ${tx.status}` }
          return { kind: 'failed', code: tx.status, note: `txStatusByCloid: executed with error ${tx.status}` }
        }
        if (a.type === 'withdraw' && this.d.reads.withdrawNonces) {
          const nonces = await this.d.read(() => this.d.reads.withdrawNonces!(acct))
          const seen = nonces.includes(String(a.withdraw_nonce))
          c.checks.push(
            `withdraws(${acct}): withdraw_nonce ${a.withdraw_nonce} ${seen ? 'present' : 'absent'} among ${nonces.length} records`,
          )
          if (seen) return { kind: 'executed', status: 'success', note: `withdraw record with withdraw_nonce ${a.withdraw_nonce} found` }
          // The withdraws list keeps 3 days: an absent record proves it never executed while that covers the send.
          if (c.dead && this.d.now() - c.s.createdAt < WITHDRAWS_RETENTION_MS - 3600_000)
            return {
              kind: 'notexecuted',
              note: 'no withdraw record with its business nonce inside the 3-day retention; the envelope expired',
            }
        }
        return this.absent(c, ownerActionAdvice(a.type, c))
      }
      case 'order': {
        const q = { user: acct, marketId: a.market_id, cloid: a.cloid! }
        const os = await this.order(c, q)
        if (os.found && os.status) return orderVerdict(os.status, `orderStatus ${os.status}`)
        const tx = await this.tx(c, a.cloid!)
        // The transaction ran but no order and no status record exist: refused at validation (spec §3).
        if (tx.found && tx.status)
          return {
            kind: 'failed',
            code: SUCCESS.has(tx.status) ? 'orderrefused' : tx.status,
            note: 'txStatusByCloid found the transaction; no order and no status record: refused at validation',
          }
        return this.absent(
          c,
          `Check fills and open orders of ${acct} in market ${a.market_id} for cloid ${a.cloid}; if nothing shows, it did not trade.`,
        )
      }
      case 'modify': {
        const cloid = a.replacement.cloid ?? null
        if (cloid) {
          const os = await this.order(c, { user: acct, marketId: a.market_id, cloid })
          if (os.found && os.status) return orderVerdict(os.status, `replacement orderStatus ${os.status}`)
          const tx = await this.tx(c, cloid)
          if (tx.found && tx.status)
            return {
              kind: 'failed',
              code: SUCCESS.has(tx.status) ? 'orderrefused' : tx.status,
              note: 'modify executed; its replacement has no order and no status record',
            }
          return this.absent(
            c,
            `Check the target order and fills of ${acct} in market ${a.market_id}; the replacement carries cloid ${cloid}.`,
          )
        }
        return this.effectOnly(c, [await this.itemEffect(c, a)])
      }
      case 'cancel':
      case 'cancelAll':
        return this.effectOnly(c, [await this.itemEffect(c, a)])
      case 'batch': {
        const effects: ItemEffect[] = []
        for (const it of a.items) effects.push(await this.itemEffect(c, it))
        const cloids = a.items.flatMap((it) =>
          it.type === 'order' && it.cloid ? [it.cloid] : it.type === 'modify' && it.replacement.cloid ? [it.replacement.cloid] : [],
        )
        if (cloids.length > 0) {
          const tx = await this.tx(c, cloids[0]!)
          if (tx.found && tx.status) {
            if (!SUCCESS.has(tx.status)) return { kind: 'failed', code: tx.status, note: `batch executed with error ${tx.status}` }
            if (effects.some((e) => e.kind === 'done'))
              return { kind: 'executed', status: 'executed', note: `batch executed; items: ${effects.map((e) => e.word).join(', ')}` }
            return {
              kind: 'failed',
              code: 'batchnoeffect',
              note: `batch executed but no item took effect: ${effects.map((e) => e.word).join(', ')}`,
            }
          }
          if (effects.some((e) => e.kind === 'done' && e.own))
            return {
              kind: 'executed',
              status: 'executed',
              note: `an order of this batch exists; items: ${effects.map((e) => e.word).join(', ')}`,
            }
          if (c.dead) {
            const proof = this.openTarget(c, effects)
            if (proof) return proof
          }
          return this.absent(
            c,
            `Check open orders, order statuses and fills of ${acct} for the batch items: ${effects.map((e) => e.word).join(', ')}.`,
          )
        }
        return this.effectOnly(c, effects)
      }
      case 'approveAgent':
      case 'revokeAgent': {
        if (!c.dead) return { kind: 'pending' }
        const agents = await this.d.read(() => this.d.reads.userAgents(acct))
        const slot = agents.find((x) => x.slotId === a.slot_id)
        c.checks.push(`userAgents slot ${a.slot_id}: ${slot?.agent ?? 'empty'}`)
        const effect = a.type === 'approveAgent' ? slot?.agent?.toLowerCase() === a.agent.toLowerCase() : !slot?.agent
        if (effect) return { kind: 'executed', status: 'executed', note: `userAgents slot ${a.slot_id}: ${slot?.agent ?? 'empty'}` }
        return {
          kind: 'unresolved',
          reason: `slot ${a.slot_id} does not show the change after expiry`,
          advice: `Check agent slot ${a.slot_id} of ${acct}; if it does not show the change, approve or revoke it again.`,
        }
      }
      default:
        return {
          kind: 'unresolved',
          reason: `no way to read the outcome of a ${(a as { type: string }).type}`,
          advice: 'Check the account on the service before doing this again.',
        }
    }
  }

  /**
   * Cancels without a cloid of their own: judged by the exchange's state after the envelope
   * can no longer execute, item by item. All items took effect: executed. A cancel target still
   * open, or every target closed otherwise (filled): took no effect, final `notexecuted` with a
   * note that does not claim whether it ran.
   * Anything else (orders open after a cancel-all, targets not found): unresolved, with the evidence.
   */
  private effectOnly(c: Ctx, effects: ItemEffect[]): Verdict {
    if (!c.dead) return { kind: 'pending' }
    const words = effects.map((e) => e.word).join(', ')
    if (effects.every((e) => e.kind === 'done'))
      return { kind: 'executed', status: effects.length === 1 ? effects[0]!.status : 'executed', note: `read from the exchange: ${words}` }
    const proof = this.openTarget(c, effects)
    if (proof) return proof
    // Every target closed otherwise (filled, ...): the cancel had no effect, but whether it never
    // ran or ran and failed (missingorder) is not recorded, so neither is claimed.
    if (effects.every((e) => e.kind === 'moot'))
      return {
        kind: 'notexecuted',
        note:
          `${CANCEL_NO_EFFECT}: its target is no longer open (${words}), so no cancel could apply and there is nothing left to cancel; whether ` +
          `it never ran or ran and failed (missingorder) inside its block, the exchange does not record`,
      }
    return {
      kind: 'unresolved',
      reason: `the exchange does not show whether the cancels took effect: ${words}`,
      advice: `Check open orders of ${c.s.account} (${words}) and cancel again what is still open.`,
    }
  }

  private async itemEffect(
    c: Ctx,
    it: { type: string; market_id?: string; oid?: string; cloid?: string; replacement?: { cloid?: string | null } },
  ): Promise<ItemEffect> {
    const acct = c.s.account
    if (it.type === 'cancelAll') {
      const open = await this.d.read(() => this.d.reads.openOrders(acct, it.market_id!))
      c.checks.push(`openOrders(${acct}, market ${it.market_id}): ${open.length} open`)
      // Orders open after a cancel-all may have been placed after it ran: no proof either way.
      return open.length === 0
        ? { kind: 'done', status: 'nothingopen', word: `market ${it.market_id}: nothing open`, own: false }
        : { kind: 'open', status: 'ordersstillopen', word: `market ${it.market_id}: ${open.length} still open`, own: false }
    }
    if (it.type === 'order') {
      if (!it.cloid) return { kind: 'unknown', status: 'unknown', word: 'order without cloid', own: false }
      const os = await this.order(c, { user: acct, marketId: it.market_id!, cloid: it.cloid })
      return os.found
        ? { kind: 'done', status: os.status ?? 'found', word: `order ${it.cloid}: ${os.status}`, own: true }
        : { kind: 'unknown', status: 'notfound', word: `order ${it.cloid}: not found`, own: false }
    }
    if (it.type === 'modify' && it.replacement?.cloid) {
      const os = await this.order(c, { user: acct, marketId: it.market_id!, cloid: it.replacement.cloid })
      if (os.found)
        return { kind: 'done', status: os.status ?? 'found', word: `replacement ${it.replacement.cloid}: ${os.status}`, own: true }
    }
    // cancel (or modify) of a target order, by oid or by cloid.
    const q = it.oid !== undefined ? { oid: it.oid } : it.cloid ? { user: acct, marketId: it.market_id!, cloid: it.cloid } : null
    if (!q) return { kind: 'unknown', status: 'unknown', word: `${it.type} without target`, own: false }
    const os = await this.order(c, q)
    const name = 'oid' in q ? `oid ${q.oid}` : `cloid ${q.cloid}`
    if (!os.found || !os.status) return { kind: 'unknown', status: 'notfound', word: `${name}: not found`, own: false }
    if (os.status === 'cancelled') return { kind: 'done', status: 'cancelled', word: `${name}: cancelled`, own: false }
    // A modify's target can stay open when the modify ran and its replacement failed: only a cancel proves anything.
    if (STILL_OPEN.has(os.status))
      return { kind: 'open', status: os.status, word: `${name}: still ${os.status}`, own: false, cancelTarget: it.type === 'cancel' }
    // Filled or closed otherwise: a cancel could not have done anything.
    return { kind: 'moot', status: os.status, word: `${name}: ${os.status} (a cancel cannot apply)`, own: false }
  }
}

type ItemEffect = { kind: 'done' | 'open' | 'moot' | 'unknown'; status: string; word: string; own: boolean; cancelTarget?: boolean }

/**
 * The last moment (ms, block time) the envelope could execute: its `expires_after_ms`, and in
 * any case its nonce plus 2 days (spec §4: older nonces are refused at execution).
 */
function lastExecutableMs(env: TradeEnvelope): number {
  const expires =
    env.expires_after_ms !== undefined && /^[0-9]+$/.test(String(env.expires_after_ms))
      ? Number(env.expires_after_ms)
      : Number.POSITIVE_INFINITY
  const nonce = /^[0-9]+$/.test(String(env.nonce)) ? Number(env.nonce) + NONCE_MAX_AGE_MS : Number.POSITIVE_INFINITY
  return Math.min(expires, nonce)
}

function orderVerdict(status: string, note: string): Verdict {
  if (ORDER_OK.has(status)) return { kind: 'executed', status, note }
  return { kind: 'failed', code: status, note }
}

export function earliestOf(w: QueryWindow): bigint | null {
  if (w.earliestRetainedHeight !== null) return w.earliestRetainedHeight
  if (w.height !== null) return w.height - LOOKBACK_BLOCKS + 1n > 0n ? w.height - LOOKBACK_BLOCKS + 1n : 0n
  return null
}

function ownerActionAdvice(type: string, c: Ctx): string {
  const when = new Date(c.s.createdAt).toISOString()
  switch (type) {
    case 'settle':
      return (
        `Compare the credit account's position and the cash account's available balance with their values before ${when}; if the amount moved, ` +
        `the settle executed. Acknowledge in the journal before settling again.`
      )
    case 'repay':
      return (
        `Compare the margin account's short and the paying account's balance with their values before ${when}; if the short shrank by the ` +
        `amount, the repay executed. Acknowledge before repaying again.`
      )
    case 'transfer':
      return `Compare both accounts' available balances with their values before ${when}; acknowledge before transferring again.`
    case 'withdraw':
      return `Check /info withdraws of the account for its withdraw_nonce (kept 3 days) and the destination chain; acknowledge before withdrawing again.`
    default:
      return `Check the target account's status before activating again; acknowledge in the journal first.`
  }
}
