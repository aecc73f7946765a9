import { formatAmount } from '../../../../contract/format'
import { parseDecimal } from '../../../money/decimal'
import { FILLS_OVERLAP_MS, who, type AlertAccount, type RuleContext, type SessionState } from './context'

/** A rise a fill or a write of the desk explains reads `deposits` at most this often per account (a deposit beside trading is still reported). */
const EXPLAINED_DEPOSITS_EVERY_MS = 5 * 60_000

/**
 * Funds received: a new deposit record, or a rise of an asset's total balance that neither a
 * deposit, a fill of this account nor one of the desk's own journaled writes touching this
 * address explains (a transfer from someone else, a payout...). Balances are the streamed
 * ones (a credit account's collateral: its positions); `deposits` is read only when one rose,
 * once the fill frame that may explain it had time to arrive.
 */
export async function checkFunds(ctx: RuleContext, st: SessionState, a: AlertAccount): Promise<void> {
  const pool = st.s.pool
  if (!pool) return
  const log = ctx.d.journal.alerts
  const net = st.s.name
  const user = a.address.toLowerCase()
  const live = pool.state(user)
  const creditMode = live.credit?.value.authorized === true
  const totals: Record<string, string> = {}
  if (creditMode) {
    for (const p of live.credit!.value.positions) totals[String(p.asset_id)] = String(p.actual_qty)
  } else if (live.balances) {
    const assets = await ctx.assets(st.s)
    for (const b of live.balances.value) {
      const asset = assets.get(b.assetId)
      if (!asset) continue
      totals[String(b.assetId)] = String(
        b.total !== null
          ? parseDecimal(b.total, asset.decimals)
          : parseDecimal(b.available ?? '0', asset.decimals) + parseDecimal(b.locked, asset.decimals),
      )
    }
  } else return // no live state yet: the first frame (or the pool's poll) brings it
  const key = creditMode ? `positions:${user}` : `balances:${user}`
  const now = ctx.d.now()
  const prevRaw = log.getState(net, key)
  const save = () => {
    log.setState(net, key, JSON.stringify(totals))
    log.setState(net, `funds-checked:${user}`, String(now))
  }
  // First sight in this session: the state at start is the baseline, whatever an earlier run
  // stored (balances that moved while the desk was closed are not funds received now).
  const baselineAt = st.fundsBaselineAt.get(key)
  if (baselineAt === undefined || prevRaw === null) {
    st.fundsBaselineAt.set(key, (creditMode ? live.credit?.at : live.balances?.at) ?? now)
    return save()
  }
  const prev = JSON.parse(prevRaw) as Record<string, string>
  const rose = Object.entries(totals).filter(([id, v]) => BigInt(v) > BigInt(prev[id] ?? '0'))
  if (rose.length === 0) {
    st.pendingRise.delete(user)
    if (prevRaw !== JSON.stringify(totals)) save()
    return
  }
  // The balance frame may come before the fill frame that explains it: give that a moment.
  const grace = ctx.d.fundsGraceMs ?? 2000
  const firstSeen = st.pendingRise.get(user) ?? now
  st.pendingRise.set(user, firstSeen)
  if (now - firstSeen < grace) return ctx.soon(user, grace - (now - firstSeen) + 50)
  st.pendingRise.delete(user)
  const since = firstSeen - FILLS_OVERLAP_MS
  const hadFills = pool.fills(user).some((f) => f.time >= since)
  const ownWrite = ctx.d.journal
    .list({ network: net, since, order: 'newest', limit: 500 })
    .some((x) => x.updatedAt >= since && x.body.toLowerCase().includes(user.slice(2)))
  const explained = hadFills || ownWrite
  const depositedAssets = new Set<number>()
  if (!explained || now - (st.depositsReadAt.get(user) ?? -Infinity) >= EXPLAINED_DEPOSITS_EVERY_MS) {
    const deps = await st.s.info.deposits({ user: a.address }, { lane: 'background' })
    st.depositsReadAt.set(user, now)
    const assets = await ctx.assets(st.s)
    for (const raw of deps.deposits) {
      const r = raw as Record<string, unknown>
      const time = typeof r.time_ms === 'number' ? r.time_ms : null
      const assetId = typeof r.asset_id === 'number' ? r.asset_id : null
      // A deposit the baseline already holds was there at start: not new.
      if (time === null || assetId === null || time < ctx.settings().armedSinceMs || time <= baselineAt) continue
      const asset = assets.get(assetId)
      const amount = asset && typeof r.amount === 'string' ? formatAmount(r.amount, asset) : `an amount of asset ${assetId}`
      // A deposit first seen now explains its asset's balance rise (no second alert for it).
      const fresh = ctx.fire(net, `deposit:${user}:${String(r.deposit_id ?? `${time}:${assetId}`)}`, {
        kind: 'funds-received',
        level: 'success',
        title: `Deposit received: ${who(a)}`,
        message: `${amount} deposited to ${who(a)}.`,
        account: a.address,
      })
      if (fresh) depositedAssets.add(assetId)
    }
  }
  save()
  // A credit account's positions move with its credit trading: only deposit records alert for it.
  if (creditMode || explained) return
  const assets = await ctx.assets(st.s)
  for (const [id, now2] of rose) {
    if (depositedAssets.has(Number(id))) continue
    const before = BigInt(prev[id] ?? '0')
    const after = BigInt(now2)
    const asset = assets.get(Number(id))!
    ctx.fire(net, `balance-up:${user}:${id}:${after}:${now}`, {
      kind: 'funds-received',
      level: 'info',
      title: `Funds received: ${who(a)}`,
      message:
        `${asset.symbol} balance of ${who(a)} rose by ${formatAmount(after - before, asset)} (to ${formatAmount(after, asset)}) with no ` +
        `deposit record, fill or write of this desk to explain it.`,
      account: a.address,
    })
  }
}
