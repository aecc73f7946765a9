import { formatAmount } from '../../../../contract/format'
import { parseDecimal } from '../../../money/decimal'
import { fromInfoFill, type StreamFill } from '../../../streams/fills'
import { FILLS_OVERLAP_MS, who, type AlertAccount, type MarketLabel, type RuleContext, type SessionState } from './context'

/**
 * The pool's own backfill covers fills from 5 minutes before it started (its sweep, for accounts
 * whose state changed or whose snapshot was full) plus the stream's snapshot; a stored check
 * older than this at start leaves a gap read once.
 */
const CATCH_UP_GAP_MS = 4 * 60_000

/**
 * New fills in the pool's book (deduplicated on (user, tid) whatever brought them: frame,
 * reconnect backfill, sweep), one alert per order per pass. After a restart, fills since the
 * previous run's last check that the pool's own backfill does not reach are read once.
 */
export async function checkFills(ctx: RuleContext, st: SessionState, a: AlertAccount, alert: boolean): Promise<void> {
  const pool = st.s.pool
  if (!pool) return
  const log = ctx.d.journal.alerts
  const net = st.s.name
  const user = a.address.toLowerCase()
  const armed = ctx.settings().armedSinceMs
  const checkKey = `fills-checked:${user}`
  let stored = st.storedCheck.get(user)
  if (stored === undefined) {
    const raw = log.getState(net, checkKey)
    stored = raw === null ? null : Number(raw)
    st.storedCheck.set(user, stored)
    if (stored !== null && stored < st.attachedAt - CATCH_UP_GAP_MS) catchUp(ctx, st, user, Math.max(armed, stored - FILLS_OVERLAP_MS))
  }
  // Fills older than the previous run's check (less the overlap for late blocks) were examined then.
  const floor = Math.max(armed, stored === null ? armed : stored - FILLS_OVERLAP_MS)
  let seen = st.seen.get(user)
  if (!seen || seen.size > 50_000) st.seen.set(user, (seen = new Set()))
  const fresh: StreamFill[] = []
  for (const f of pool.fills(user)) {
    if (seen.has(f.tid)) continue
    seen.add(f.tid)
    if (f.time < floor || log.getState(net, `fill:${user}:${f.tid}`) !== null) continue
    log.setState(net, `fill:${user}:${f.tid}`, '1')
    fresh.push(f)
  }
  log.setState(net, checkKey, String(ctx.d.now()))
  if (!alert || fresh.length === 0) return
  const byOrder = new Map<string, StreamFill[]>()
  for (const f of fresh) {
    const k = f.oid !== null ? `oid ${f.oid}` : `tid ${f.tid}`
    byOrder.set(k, [...(byOrder.get(k) ?? []), f])
  }
  const markets = await ctx.marketLabels(st).catch(() => new Map<number, MarketLabel>())
  for (const [k, group] of byOrder) {
    const first = group[0]!
    const m = first.coin === null ? undefined : markets.get(Number(first.coin))
    const side = first.side === 'B' ? 'Bought' : first.side === 'A' ? 'Sold' : 'Traded'
    let text: string
    if (m) {
      let qty = 0n
      for (const f of group) qty += parseDecimal(f.sz ?? '0', m.quantityDecimals)
      const prices = [...new Set(group.map((f) => f.px ?? '?'))].map((p) => formatAmount(p, { symbol: m.quoteSymbol })).join(', ')
      text =
        `${side} ${formatAmount(qty, { symbol: m.baseSymbol, decimals: m.quantityDecimals })} at ${prices} on ${m.symbol} for ${who(a)} ` +
        `(${group.length} fill${group.length > 1 ? 's' : ''}, ${k}).`
    } else {
      text = `${side} on market ${String(first.coin ?? '?')} for ${who(a)} (${group.length} fill${group.length > 1 ? 's' : ''}, ${k}).`
    }
    ctx.fire(net, `fills:${user}:${first.tid}`, {
      kind: 'order-filled',
      level: 'success',
      title: `Order filled: ${who(a)}`,
      message: text,
      account: a.address,
    })
  }
}

/** Fills of the gap a restart left, read once into the pool's book (its update triggers a pass). */
function catchUp(ctx: RuleContext, st: SessionState, user: string, since: number): void {
  const pool = st.s.pool
  if (!pool) return
  st.s.info.allFillsSince(user, since, { lane: 'background' }).then(
    (fills) =>
      pool.addFills(
        user,
        fills.map((f) => fromInfoFill(user, f)),
      ),
    (e: unknown) =>
      ctx.d.log?.(`alerts: fills since the last run for ${user} could not be read: ${e instanceof Error ? e.message : String(e)}`),
  )
}
