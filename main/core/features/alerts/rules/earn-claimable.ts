import { formatAmount, formatEarnWithdrawal } from '../../../../contract/format'
import { earnOverview } from '../../earn'
import { who, type AlertAccount, type RuleContext, type SessionState } from './context'

/** The earn API has no stream: each account's earn state is read at most this often. */
const EARN_EVERY_MS = 5 * 60_000

/** The earn API has no stream: each account is read at most every few minutes (or every pass, when passes are slower). */
export async function checkEarn(ctx: RuleContext, st: SessionState, a: AlertAccount): Promise<void> {
  const user = a.address.toLowerCase()
  const now = ctx.d.now()
  if (now - (st.earnReadAt.get(user) ?? -Infinity) < Math.max(EARN_EVERY_MS, ctx.settings().checkIntervalSec * 1000) - 50) return
  st.earnReadAt.set(user, now)
  const o = await earnOverview(st.s.write().earnCtx, a.address)
  for (const w of o.withdrawals) {
    if (!w.claimable) continue
    ctx.fire(st.s.name, `earn-claimable:${w.operationId}`, {
      kind: 'earn-claimable',
      level: 'info',
      title: `Earn withdrawal claimable: ${who(a)}`,
      message: `${formatAmount(w.net, { symbol: w.symbol })} of ${who(a)} can be claimed now (${formatEarnWithdrawal(w)}).`,
      account: a.address,
    })
  }
}
