import * as v from 'valibot'
import { adviceForCode as adviceFor, BENIGN_CLOSE_CODES } from '../../../contract/advice'
import type { HttpAnswer } from './http-post'

/**
 * Reads a /trade answer the way the spec's tables do. The body, not the HTTP status, carries
 * the outcome: branch on `submission_status`, then on `error.code`.
 */

/** The envelope is validated strictly; `response` is read by hand below (every shape known). */
export const TradeAnswerSchema = v.object({
  submission_status: v.picklist(['accepted', 'rejected', 'timeout']),
  tx_hash: v.optional(v.string()),
  error: v.optional(v.object({ code: v.string(), message: v.optional(v.string()), retry_after_ms: v.optional(v.number()) })),
  response: v.optional(v.unknown()),
})

export type TradeAnswer = v.InferOutput<typeof TradeAnswerSchema>

/** One order outcome, flattened: `item` is the batch item index (0 for a single action). */
export type Leaf =
  | { item: number; kind: 'open'; oid: string; cloid: string | null }
  | { item: number; kind: 'filled'; oid: string; cloid: string | null; totalSz: string; avgPx: string }
  | { item: number; kind: 'cancelled'; oid: string; cloid: string | null }
  | { item: number; kind: 'error'; code: string }

export type TradeOutcome =
  /** Reached execution and did what it was asked (a batch may hold per-item `error` leaves; benign closes are successes). */
  | { kind: 'accepted'; txHash: string | null; leaves: Leaf[]; answer: TradeAnswer }
  /** Reached execution and failed there: the action (or every batch item) ended in an error leaf. */
  | { kind: 'failed'; code: string; advice: string | null; txHash: string | null; leaves: Leaf[]; answer: TradeAnswer }
  /** Refused (before or at execution); `code` says why. Never executed. */
  | { kind: 'rejected'; code: string; txHash: string | null; answer: TradeAnswer | null }
  /** Never reached a node: resend the same signed bytes after `delayMs`. */
  | { kind: 'resendSame'; code: 'Unavailable'; delayMs: number }
  /** Not admitted (throttled or degraded): back off `delayMs`, then resend the same bytes. */
  | { kind: 'backoff'; code: 'RateLimited' | 'TooManyPending' | 'PlaceOrderSuspended' | 'QueryLagBackpressure'; delayMs: number }
  /**
   * Reached (or may have reached) a node; the outcome is not known: reconcile by cloid.
   * `UnclassifiedAnswer`: accepted, but the response holds a leaf or status of a shape the desk
   * does not know, so it cannot tell success from failure.
   */
  | {
      kind: 'unknown'
      code: 'WaitBudgetTimeout' | 'NodeUnreachable' | 'UnreadableAnswer' | 'UnclassifiedAnswer'
      txHash: string | null
      detail?: string
    }

/** The action as sent, so the answer can be checked against the shape that action gets. */
type ActionLike = { type: string; items?: readonly { type: string }[] }

class Unclassified extends Error {}

function isObj(x: unknown): x is Record<string, unknown> {
  return typeof x === 'object' && x !== null && !Array.isArray(x)
}

function oidOf(x: unknown): string {
  if (typeof x === 'number' && Number.isSafeInteger(x) && x >= 0) return String(x)
  if (typeof x === 'string' && /^(0|[1-9][0-9]*)$/.test(x)) return x
  throw new Unclassified(`oid ${JSON.stringify(x)}`)
}

function cloidOfLeaf(x: unknown): string | null {
  if (x === undefined || x === null) return null
  if (typeof x === 'string') return x
  throw new Unclassified(`cloid ${JSON.stringify(x)}`)
}

/** A leaf is an object with exactly one known key; anything else is not classified. */
function leafOf(item: number, l: unknown): Leaf {
  if (!isObj(l)) throw new Unclassified('leaf is not an object')
  const keys = Object.keys(l)
  if (keys.length !== 1) throw new Unclassified(`leaf with keys ${keys.join(',')}`)
  const k = keys[0]!
  const body = l[k]
  if (k === 'error') {
    if (typeof body !== 'string' || body.length === 0) throw new Unclassified('error leaf without a code')
    return { item, kind: 'error', code: body }
  }
  if (!isObj(body)) throw new Unclassified(`${k} leaf is not an object`)
  if (k === 'open') return { item, kind: 'open', oid: oidOf(body.oid), cloid: cloidOfLeaf(body.cloid) }
  if (k === 'cancelled') return { item, kind: 'cancelled', oid: oidOf(body.oid), cloid: cloidOfLeaf(body.cloid) }
  if (k === 'filled') {
    if (typeof body.total_sz !== 'string' || typeof body.avg_px !== 'string') throw new Unclassified('filled leaf without total_sz/avg_px')
    return { item, kind: 'filled', oid: oidOf(body.oid), cloid: cloidOfLeaf(body.cloid), totalSz: body.total_sz, avgPx: body.avg_px }
  }
  throw new Unclassified(`unknown leaf "${k.slice(0, 40)}"`)
}

const LEAVES_BY_ACTION: Record<string, readonly Leaf['kind'][]> = {
  order: ['open', 'filled', 'error'],
  cancel: ['cancelled', 'error'],
  modify: ['open', 'filled', 'cancelled', 'error'],
  cancelAll: ['cancelled', 'error'],
}
const ORDER_ACTIONS = new Set(['order', 'cancel', 'modify', 'cancelAll', 'batch'])

function checkKinds(type: string, leaves: Leaf[]): Leaf[] {
  const ok = LEAVES_BY_ACTION[type]
  if (ok) for (const l of leaves) if (!ok.includes(l.kind)) throw new Unclassified(`${l.kind} leaf for a ${type}`)
  return leaves
}

/** Leaves of one (sub-)response of the given action type; throws Unclassified on any unknown shape. */
function leavesOfItem(item: number, r: unknown, type: string | null): Leaf[] {
  if (!isObj(r) || typeof r.type !== 'string') throw new Unclassified('response without a type')
  const t = type ?? r.type
  if (t === 'cancelAll' || (type === null && Array.isArray(r.statuses))) {
    if (!Array.isArray(r.statuses) || 'status' in r) throw new Unclassified('cancelAll response without statuses[]')
    return checkKinds(
      'cancelAll',
      r.statuses.map((l) => leafOf(item, l)),
    )
  }
  if (t === 'order' || t === 'cancel' || t === 'modify') {
    if (!('status' in r) || 'statuses' in r) throw new Unclassified(`${t} response without one status`)
    return checkKinds(t, [leafOf(item, r.status)])
  }
  // A non-order action: `default`, with no status on success and an error leaf on failure.
  if (type !== null && ORDER_ACTIONS.has(type)) throw new Unclassified(`${type} answered as ${r.type}`)
  if ('statuses' in r) throw new Unclassified(`${r.type} response with statuses[]`)
  if (!('status' in r) || r.status === undefined || r.status === null) return []
  const leaf = leafOf(item, r.status)
  if (leaf.kind !== 'error') throw new Unclassified(`${leaf.kind} leaf for a ${t}`)
  return [leaf]
}

/**
 * Every leaf of an accepted response, in order (batch items, cancelAll statuses). With the
 * action as sent, the response must have that action's shape (a batch one sub-response per
 * item). Throws Unclassified on anything it does not know.
 */
function leavesStrict(answer: TradeAnswer, action: ActionLike | null): Leaf[] {
  const r = answer.response
  if (r === undefined || r === null) {
    if (action && ORDER_ACTIONS.has(action.type)) throw new Unclassified(`accepted ${action.type} without a response`)
    return []
  }
  if (!isObj(r)) throw new Unclassified('response is not an object')
  if (r.type === 'batch' || action?.type === 'batch') {
    if (r.type !== 'batch' || !Array.isArray(r.statuses)) throw new Unclassified('batch response without statuses[]')
    const items = action?.items
    if (items && items.length !== r.statuses.length)
      throw new Unclassified(`batch of ${items.length} answered with ${r.statuses.length} statuses`)
    return r.statuses.flatMap((s: unknown, i: number) => leavesOfItem(i, s, items ? items[i]!.type : null))
  }
  return leavesOfItem(0, r, action?.type ?? null)
}

/**
 * Did the accepted action fail at execution? A single action whose leaf is an error (other than
 * a benign close of an order), or a batch / cancelAll whose every leaf is such an error.
 * Returns the first failing code, or null.
 */
function failureOf(leaves: Leaf[], action: ActionLike | null): string | null {
  const failing = (l: Leaf) => l.kind === 'error' && !BENIGN_CLOSE_CODES.has(l.code)
  if (leaves.length === 0) return null
  if (!leaves.every(failing)) return null
  // A batch fails as a whole only when every one of its items failed.
  if (action?.type === 'batch' && action.items && new Set(leaves.map((l) => l.item)).size !== action.items.length) return null
  const first = leaves[0]!
  return first.kind === 'error' ? first.code : null
}

const NEVER_ADMITTED = new Set(['RateLimited', 'TooManyPending', 'PlaceOrderSuspended', 'QueryLagBackpressure'])

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

/**
 * Classifies a /trade answer. Pass the action as sent: its expected response shape is then
 * checked, and a response that does not match (an unknown leaf, a missing status, a batch of
 * the wrong length) makes the outcome `unknown`, to be reconciled, never a success.
 */
export function classifyTradeAnswer(res: HttpAnswer, action: ActionLike | null = null): TradeOutcome {
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
  if (answer.submission_status === 'accepted') {
    let leaves: Leaf[]
    try {
      leaves = leavesStrict(answer, action)
    } catch (e) {
      if (e instanceof Unclassified) return { kind: 'unknown', code: 'UnclassifiedAnswer', txHash, detail: e.message }
      throw e
    }
    const failed = failureOf(leaves, action)
    if (failed) return { kind: 'failed', code: failed, advice: adviceFor(failed), txHash, leaves, answer }
    return { kind: 'accepted', txHash, leaves, answer }
  }
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
