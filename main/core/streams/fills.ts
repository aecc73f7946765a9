import type { Fill as InfoFill } from '../exchange/info/types/fill'
import type { WsFill } from './frames'

/** A fill as the desk keeps it, from a socket frame or an /info backfill, keyed on (user, tid). */
export interface StreamFill {
  user: string
  tid: bigint
  time: number
  side: 'B' | 'A' | null
  /** market id as a decimal string, when known */
  coin: string | null
  px: string | null
  sz: string | null
  oid: bigint | null
  cloid: string | null
  fee: string | null
  feeAssetId: number | null
}

export function fromWsFill(user: string, f: WsFill): StreamFill {
  return fromWsFillLower(user.toLowerCase(), f)
}

/** `fromWsFill` for a user already lowercased (the frame parser lowercases it once per frame). */
export function fromWsFillLower(user: string, f: WsFill): StreamFill {
  const ft = f.feeToken
  const token = ft === undefined ? null : typeof ft === 'number' ? ft : Number(ft)
  return {
    user,
    tid: f.tid,
    time: f.time,
    side: f.side,
    coin: f.coin,
    px: f.px,
    sz: f.sz,
    oid: f.oid ?? null,
    cloid: f.cloid ?? null,
    fee: f.fee ?? null,
    feeAssetId: token !== null && Number.isSafeInteger(token) ? token : null,
  }
}

export function fromInfoFill(user: string, f: InfoFill): StreamFill {
  const coin = f.coin ?? (f.market_id === undefined ? null : String(f.market_id))
  return {
    user: user.toLowerCase(),
    tid: f.tid,
    time: f.time,
    side: f.side,
    coin,
    px: f.px ?? f.price ?? null,
    sz: f.sz ?? f.quantity ?? null,
    oid: f.oid ?? null,
    cloid: f.cloid ?? null,
    fee: f.fee,
    feeAssetId: f.fee_asset_id,
  }
}

/**
 * Fills per user, deduplicated on (user, tid) whatever the source (live frame, resubscribe
 * snapshot, /info backfill). A fill seen twice is merged: fields one source lacks are taken
 * from the other.
 */
export class FillBook {
  private readonly byUser = new Map<string, Map<bigint, StreamFill>>()
  private readonly maxPerUser: number

  constructor(maxPerUser = 10_000) {
    this.maxPerUser = maxPerUser
  }

  /** Adds fills; returns the ones not seen before, in the order given. */
  add(fills: readonly StreamFill[]): StreamFill[] {
    const added: StreamFill[] = []
    let user: string | undefined
    let m: Map<bigint, StreamFill> | undefined
    for (const f of fills) {
      // A frame's fills share one user: look its map up once.
      if (f.user !== user || m === undefined) {
        user = f.user
        m = this.byUser.get(user)
        if (!m) this.byUser.set(user, (m = new Map()))
      }
      const prev = m.get(f.tid)
      if (prev) {
        m.set(f.tid, mergeFill(prev, f))
        continue
      }
      m.set(f.tid, f)
      added.push(f)
      if (m.size > this.maxPerUser) {
        // Maps keep insertion order; the oldest inserted fill is dropped first.
        const first = m.keys().next()
        if (!first.done) m.delete(first.value)
      }
    }
    return added
  }

  has(user: string, tid: bigint): boolean {
    return this.byUser.get(user.toLowerCase())?.has(tid) ?? false
  }

  /** A user's fills, oldest first (by time, then tid). */
  list(user: string): StreamFill[] {
    const m = this.byUser.get(user.toLowerCase())
    if (!m) return []
    return [...m.values()].sort((a, b) => a.time - b.time || (a.tid < b.tid ? -1 : a.tid > b.tid ? 1 : 0))
  }

  /** Time of the newest fill seen for `user`, or null. */
  lastTime(user: string): number | null {
    const m = this.byUser.get(user.toLowerCase())
    if (!m || m.size === 0) return null
    let t = -Infinity
    for (const f of m.values()) if (f.time > t) t = f.time
    return t
  }

  /** Highest tid seen for `user`, or null. */
  lastTid(user: string): bigint | null {
    const m = this.byUser.get(user.toLowerCase())
    if (!m || m.size === 0) return null
    let t = -1n
    for (const k of m.keys()) if (k > t) t = k
    return t
  }
}

function mergeFill(a: StreamFill, b: StreamFill): StreamFill {
  return {
    user: a.user,
    tid: a.tid,
    time: a.time,
    side: a.side ?? b.side,
    coin: a.coin ?? b.coin,
    px: a.px ?? b.px,
    sz: a.sz ?? b.sz,
    oid: a.oid ?? b.oid,
    cloid: a.cloid ?? b.cloid,
    fee: a.fee ?? b.fee,
    feeAssetId: a.feeAssetId ?? b.feeAssetId,
  }
}
