import { formatPercent, formatUsdCents } from '../../../../contract/format'
import type { CreditHealthView } from '../../../../contract/types'
import { formatAtoms, parseDecimal } from '../../../money/decimal'
import type { MarketData } from '../../../session'
import { creditFor } from '../../credit'
import { who, type AlertAccount, type RuleContext, type SessionState } from './context'

/** An account without live credit state is asked through /info at most this often (the stream normally brings it within seconds). */
const CREDIT_FALLBACK_EVERY_MS = 60_000
/** Accounts /info says have no credit line are not asked again for this long. */
const NOT_CREDIT_RECHECK_MS = 10 * 60_000

/**
 * Credit line in use past a threshold: once per upward crossing (re-armed when it drops
 * back below), one alert for the highest threshold crossed at once. From the streamed credit state and the cached marks; /info (background lane,
 * at most once a minute) only for an account with no live credit state yet that may be a
 * credit account, never for one known not to be.
 */
export async function checkLtv(
  ctx: RuleContext,
  st: SessionState,
  a: AlertAccount,
  md: MarketData | undefined,
  full: boolean,
): Promise<void> {
  const user = a.address.toLowerCase()
  const now = ctx.d.now()
  const skipUntil = ctx.notCredit.get(user)
  if (skipUntil !== undefined && skipUntil > now) return
  const live = st.s.pool?.state(user)
  let h: CreditHealthView | null | undefined
  if (live?.credit) {
    if (!live.credit.value.authorized) return
    h = creditFor(st.s, ctx.d.settings).healthLive(user, md)
    if (h === undefined) return // no marks yet, or the line's figures not streamed yet
  } else if (live?.balances && live.balances.value.length > 0) {
    return // held balances: a balance account (a credit account's balance list is empty)
  } else {
    if (!full || now - (st.creditFallbackAt.get(user) ?? -Infinity) < CREDIT_FALLBACK_EVERY_MS) return
    st.creditFallbackAt.set(user, now)
    h = await creditFor(st.s, ctx.d.settings).health(a.address, 'background')
  }
  if (!h) {
    ctx.notCredit.set(user, now + NOT_CREDIT_RECHECK_MS)
    return
  }
  const credit = parseDecimal(h.creditUsd, 8)
  const availableText = h.availableUsd ?? h.lastKnownAvailableUsd
  if (availableText === null || credit <= 0n) return
  const available = availableText.startsWith('-') ? -parseDecimal(availableText.slice(1), 8) : parseDecimal(availableText, 8)
  const usedBp = ((credit - available) * 10_000n) / credit
  const used = formatAtoms(usedBp, 2)
  const log = ctx.d.journal.alerts
  const thresholds = [...ctx.settings().ltvThresholdsPct].sort((x, y) => x - y)
  const top = thresholds[thresholds.length - 1]
  // One alert per condition: the thresholds crossed in this pass are one alert, for the highest of them
  // (each is marked fired, so a lower one does not follow on the next pass); crossing a higher one later
  // is a new condition and alerts again. Each re-arms when the use drops back below it.
  const crossed: number[] = []
  for (const t of thresholds) {
    const key = `ltv:${user}:${t}`
    const above = usedBp >= BigInt(Math.round(t * 100))
    const armed = log.getState(st.s.name, key) === null
    if (above && armed) {
      log.setState(st.s.name, key, String(now))
      crossed.push(t)
    } else if (!above && !armed) log.setState(st.s.name, key, null)
  }
  const t = crossed[crossed.length - 1]
  if (t === undefined) return
  ctx.fire(st.s.name, `ltv:${user}:${t}:${now}`, {
    kind: 'ltv',
    level: t === top ? 'error' : 'warning',
    title: `Credit line ${formatPercent(used)} in use, past ${formatPercent(String(t))}: ${who(a)}`,
    message:
      `${who(a)} uses ${formatPercent(used)} of its ${formatUsdCents(h.creditUsd)} credit line (threshold ${formatPercent(String(t))}); ` +
      `available ${formatUsdCents(availableText)}${h.availableUsd === null ? ' (last known: marks are stale)' : ''}.`,
    account: a.address,
  })
}
