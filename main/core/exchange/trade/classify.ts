import * as v from 'valibot'
import type { HttpAnswer } from './http-post'

/**
 * Reads a /trade answer the way the spec's tables do. The body, not the HTTP status, carries
 * the outcome: branch on `submission_status`, then on `error.code`.
 */

const LeafSchema = v.union([
  v.object({ open: v.object({ oid: v.union([v.number(), v.string()]), cloid: v.nullish(v.string()) }) }),
  v.object({ filled: v.object({ total_sz: v.string(), avg_px: v.string(), oid: v.union([v.number(), v.string()]), cloid: v.nullish(v.string()) }) }),
  v.object({ cancelled: v.object({ oid: v.union([v.number(), v.string()]), cloid: v.nullish(v.string()) }) }),
  v.object({ error: v.string() }),
])

const ItemResponseSchema = v.union([
  v.object({ type: v.string(), status: LeafSchema }),
  v.object({ type: v.literal('cancelAll'), statuses: v.array(LeafSchema) }),
  v.object({ type: v.string() }),
])

const ResponseBodySchema = v.union([
  v.object({ type: v.literal('batch'), statuses: v.array(ItemResponseSchema) }),
  ItemResponseSchema,
])

export const TradeAnswerSchema = v.object({
  submission_status: v.picklist(['accepted', 'rejected', 'timeout']),
  tx_hash: v.optional(v.string()),
  error: v.optional(v.object({ code: v.string(), message: v.optional(v.string()), retry_after_ms: v.optional(v.number()) })),
  response: v.optional(ResponseBodySchema),
})

export type TradeAnswer = v.InferOutput<typeof TradeAnswerSchema>

/** One order outcome, flattened: `item` is the batch item index (0 for a single action). */
export type Leaf =
  | { item: number; kind: 'open'; oid: string; cloid: string | null }
  | { item: number; kind: 'filled'; oid: string; cloid: string | null; totalSz: string; avgPx: string }
  | { item: number; kind: 'cancelled'; oid: string; cloid: string | null }
  | { item: number; kind: 'error'; code: string }

export type TradeOutcome =
  /** Reached execution. Per-order failures are `error` leaves. */
  | { kind: 'accepted'; txHash: string | null; leaves: Leaf[]; answer: TradeAnswer }
  /** Refused (before or at execution); `code` says why. Never executed. */
  | { kind: 'rejected'; code: string; txHash: string | null; answer: TradeAnswer | null }
  /** Never reached a node: resend the same signed bytes after `delayMs`. */
  | { kind: 'resendSame'; code: 'Unavailable'; delayMs: number }
  /** Not admitted (throttled or degraded): back off `delayMs`, then resend the same bytes. */
  | { kind: 'backoff'; code: 'RateLimited' | 'TooManyPending' | 'PlaceOrderSuspended' | 'QueryLagBackpressure'; delayMs: number }
  /** Reached (or may have reached) a node; the outcome is not known: reconcile by cloid. */
  | { kind: 'unknown'; code: 'WaitBudgetTimeout' | 'NodeUnreachable' | 'UnreadableAnswer'; txHash: string | null }

const NEVER_ADMITTED = new Set(['RateLimited', 'TooManyPending', 'PlaceOrderSuspended', 'QueryLagBackpressure'])

function oidStr(o: number | string): string {
  return typeof o === 'number' ? String(o) : o
}

function leafOf(item: number, l: v.InferOutput<typeof LeafSchema>): Leaf {
  if ('open' in l) return { item, kind: 'open', oid: oidStr(l.open.oid), cloid: l.open.cloid ?? null }
  if ('filled' in l) return { item, kind: 'filled', oid: oidStr(l.filled.oid), cloid: l.filled.cloid ?? null, totalSz: l.filled.total_sz, avgPx: l.filled.avg_px }
  if ('cancelled' in l) return { item, kind: 'cancelled', oid: oidStr(l.cancelled.oid), cloid: l.cancelled.cloid ?? null }
  return { item, kind: 'error', code: l.error }
}

function leavesOfItem(item: number, r: v.InferOutput<typeof ItemResponseSchema>): Leaf[] {
  if ('statuses' in r) return r.statuses.map((l) => leafOf(item, l))
  if ('status' in r) return [leafOf(item, r.status)]
  return []
}

/** Every leaf of an accepted response, in order (batch items, cancelAll statuses). */
export function leavesOf(answer: TradeAnswer): Leaf[] {
  const r = answer.response
  if (!r) return []
  if (r.type === 'batch' && 'statuses' in r) {
    return (r.statuses as v.InferOutput<typeof ItemResponseSchema>[]).flatMap((s, i) => leavesOfItem(i, s))
  }
  return leavesOfItem(0, r as v.InferOutput<typeof ItemResponseSchema>)
}

/** Delay hint of a back-off answer, bounded so a hostile value cannot stall us for ever. */
function delayOf(answer: TradeAnswer, fallback: number): number {
  const d = answer.error?.retry_after_ms
  return typeof d === 'number' && Number.isFinite(d) && d >= 0 ? Math.min(d, 60_000) : fallback
}

export function parseAnswerText(text: string): TradeAnswer | null {
  let json: unknown
  try {
    json = JSON.parse(text)
  } catch {
    return null
  }
  const r = v.safeParse(TradeAnswerSchema, json)
  return r.success ? r.output : null
}

export function classifyTradeAnswer(res: HttpAnswer): TradeOutcome {
  const answer = parseAnswerText(res.text)
  if (!answer) {
    // No trade-response body: a proxy page, a 413, a truncated body...
    if (res.status === 413) return { kind: 'rejected', code: 'RequestTooLarge', txHash: null, answer: null }
    if (res.status === 429) return { kind: 'backoff', code: 'RateLimited', delayMs: 1000 }
    if (res.status === 503) return { kind: 'resendSame', code: 'Unavailable', delayMs: 500 }
    if (res.status >= 400 && res.status < 500) return { kind: 'rejected', code: `Http${res.status}`, txHash: null, answer: null }
    return { kind: 'unknown', code: res.status === 504 ? 'NodeUnreachable' : 'UnreadableAnswer', txHash: null }
  }
  const txHash = answer.tx_hash ?? null
  const code = answer.error?.code
  if (answer.submission_status === 'accepted') return { kind: 'accepted', txHash, leaves: leavesOf(answer), answer }
  if (answer.submission_status === 'timeout') {
    if (code === 'Unavailable') return { kind: 'resendSame', code: 'Unavailable', delayMs: delayOf(answer, 500) }
    if (code === 'NodeUnreachable') return { kind: 'unknown', code: 'NodeUnreachable', txHash }
    return { kind: 'unknown', code: 'WaitBudgetTimeout', txHash }
  }
  // rejected
  if (code && NEVER_ADMITTED.has(code)) {
    const fallback = code === 'TooManyPending' ? 50 : 1000
    return { kind: 'backoff', code: code as 'RateLimited', delayMs: delayOf(answer, fallback) }
  }
  if (code === 'Unavailable') return { kind: 'resendSame', code: 'Unavailable', delayMs: delayOf(answer, 500) }
  if (code === 'NodeUnreachable') return { kind: 'unknown', code: 'NodeUnreachable', txHash }
  return { kind: 'rejected', code: code ?? 'Rejected', txHash, answer }
}
