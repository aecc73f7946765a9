/**
 * What a proposal stores to run the same write again once approved: the channel and its arguments
 * (secrets dropped, cloid fixed), known to the decision step through the call's async context; and
 * the query an approver's desk runs to recompute the write's preview from live data.
 */
import { formatNumber, formatWhen, shortAddress } from '../../../contract/format'
import { AsyncLocalStorage } from 'node:async_hooks'
import type { ProposalBody } from '../../team'
import type { WriteIntent } from '../../writes/decision'

/** Channels whose write can be replayed with its fixed cloid (their schema takes `cloid`). */
const REPLAYABLE = new Set([
  'settle.submit',
  'repay.submit',
  'transfer.submit',
  'withdraw.submit',
  'activate.submit',
  'orders.place',
  // Earn writes: a create's cloid is its operation id (withdraw:<user>:<user_nonce>), checked when run
  // again; a claim's or cancel's is the operation id it names.
  'earn.create',
  'earn.claim',
  'earn.cancel',
  // Agent approvals and revocations: their cloid is the key the decision step knows them by.
  'agents.approve',
  'agents.revoke',
])
/** Channels whose answer is not the write's outcome: team.execute reads it from the journal entry that names the proposal. */
export const ANSWERS_A_VIEW = new Set(['earn.create', 'earn.claim', 'earn.cancel', 'agents.approve', 'agents.revoke'])
/** The query that previews each replayable write from live data (approvers recompute their own). */
export const PREVIEW_OF: Record<string, string> = {
  'settle.submit': 'settle.preview',
  'repay.submit': 'repay.preview',
  'transfer.submit': 'transfer.preview',
  'withdraw.submit': 'withdraw.preview',
  'orders.place': 'orders.check',
  'earn.create': 'earn.preview',
}
/**
 * Writes with no preview channel whose target state an approver's desk reads live instead: the
 * query, its arguments from the replayed call, and the lines it gives.
 */
export const STATE_OF: Record<
  string,
  { channel: string; args: (a: Record<string, unknown>) => unknown; lines: (v: unknown, a: Record<string, unknown>) => string[] }
> = {
  'agents.approve': { channel: 'agents.list', args: (a) => ({ owner: a.owner }), lines: slotLines },
  'agents.revoke': { channel: 'agents.list', args: (a) => ({ owner: a.owner }), lines: slotLines },
  'earn.claim': { channel: 'earn.overview', args: (a) => ({ account: a.account }), lines: withdrawalLines },
  'earn.cancel': { channel: 'earn.overview', args: (a) => ({ account: a.account }), lines: withdrawalLines },
}

function slotLines(v: unknown, a: Record<string, unknown>): string[] {
  const slots = Array.isArray(v) ? (v as { slot?: unknown; agent?: unknown; epoch?: unknown }[]) : []
  const s = slots.find((x) => x.slot === a.slot)
  if (!s) return [`slot ${String(a.slot)} of ${String(a.owner)}: not listed by the exchange now`]
  return [
    s.agent
      ? `slot ${String(a.slot)} of ${String(a.owner)} holds ${String(s.agent)} now (epoch ${String(s.epoch)})`
      : `slot ${String(a.slot)} of ${String(a.owner)} is empty now`,
  ]
}

function withdrawalLines(v: unknown, a: Record<string, unknown>): string[] {
  const list = ((v ?? {}) as { withdrawals?: unknown }).withdrawals
  const w = (Array.isArray(list) ? list : []).find((x: { operationId?: unknown }) => x.operationId === a.operationId) as
    | { type: string; gross: string; symbol: string; status: string; claimableAt: number | null; canClaim: boolean; canCancel: boolean }
    | undefined
  if (!w) return [`withdrawal ${String(a.operationId)}: not among the account's active withdrawals now`]
  return [
    `${w.type} withdrawal ${String(a.operationId)} of ${w.gross} ${w.symbol}: ${w.status} now`,
    `claimable: ${w.canClaim ? 'yes' : 'no'}${w.claimableAt !== null ? ` (from ${formatWhen(w.claimableAt, Date.now())})` : ''}; cancellable: ` +
      `${w.canCancel ? 'yes' : 'no'}`,
  ]
}

/** Never stored in a proposal, whatever a channel carries. */
const SECRET_ARGS = new Set(['passphrase', 'password', 'confirmText'])

/** The channel call a write runs under, as the decision step sees it. */
export class CallContext {
  private readonly calls = new AsyncLocalStorage<{ channel: string; args: unknown }>()

  /** Runs one channel call with its name and arguments known to the decision step (what a proposal stores to replay it). */
  withCall<T>(channel: unknown, args: unknown, fn: () => Promise<T>): Promise<T> {
    if (typeof channel !== 'string' || !REPLAYABLE.has(channel)) return fn()
    return this.calls.run({ channel, args }, fn)
  }

  replayOf(intent: WriteIntent): ProposalBody['replay'] | undefined {
    const call = this.calls.getStore()
    if (!call || typeof call.args !== 'object' || call.args === null) return undefined
    const args = JSON.parse(JSON.stringify(call.args)) as Record<string, unknown>
    for (const k of Object.keys(args)) if (SECRET_ARGS.has(k)) delete args[k]
    if (intent.cloid === '') return undefined
    // The fixed cloid goes with it: the replay is the same write, matched by cloid and action.
    args.cloid = intent.cloid
    return { channel: call.channel, args: args as NonNullable<ProposalBody['replay']>['args'] }
  }
}

/** A preview (PreviewView or OrderCheckView) as lines to set beside the initiator's. */
export function previewLines(v: unknown): { title: string; lines: string[] } {
  const o = (v ?? {}) as { title?: unknown; summary?: unknown; effects?: unknown; warnings?: unknown; problems?: unknown }
  const lines: string[] = []
  if (Array.isArray(o.summary)) lines.push(...o.summary.map(String))
  if (Array.isArray(o.effects))
    for (const e of o.effects as { label?: string; account?: string; assetSymbol?: string; before?: string; after?: string }[])
      lines.push(
        `${e.label || (e.account ? shortAddress(e.account) : '')}: ${formatNumber(String(e.before))} → ${formatNumber(String(e.after))} ${e.assetSymbol ?? ''}`.trim(),
      )
  // An earn create's preview (EarnCreatePreviewView): the same lines the initiator's desk showed.
  const e = (v ?? {}) as {
    type?: unknown
    gross?: unknown
    symbol?: unknown
    fee?: unknown
    feeBps?: unknown
    net?: unknown
    waitSeconds?: unknown
  }
  if (typeof e.gross === 'string' && typeof e.symbol === 'string' && typeof e.net === 'string') {
    lines.push(
      `${String(e.type)} withdrawal of ${e.gross} ${e.symbol} from the earn pool`,
      `fee: ${String(e.fee)} ${e.symbol} (${String(e.feeBps)} bps)`,
      `you receive: ${e.net} ${e.symbol}`,
    )
    if (typeof e.waitSeconds === 'number') lines.push(`claimable after ${e.waitSeconds} s; cancellable until then`)
  }
  if (Array.isArray(o.problems)) lines.push(...o.problems.map((x) => `problem: ${String(x)}`))
  if (Array.isArray(o.warnings)) lines.push(...o.warnings.map((x) => `warning: ${String(x)}`))
  return { title: typeof o.title === 'string' ? o.title : 'recomputed now', lines }
}
