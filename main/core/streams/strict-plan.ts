import {
  SUBSCRIPTIONS_PER_CONNECTION,
  subscriptionKey,
  type PlanAccount,
  type StreamPlan,
  type Subscription,
  type UserChannel,
} from './plan'

/**
 * Strict-limits mode (trading-api §8: one connection per IP, 10 subscriptions on it): the desk
 * decides which accounts stream. Accounts are ranked by what the operator relies on now; the
 * highest stream (every channel), the rest are refreshed through /info, most due first.
 */
export type PrioritySignal = 'screen' | 'overview' | 'orders' | 'writes' | 'alerts'

/**
 * Rank of each signal (an account takes its highest): an open account or credit page, then a row
 * the overview shows, then open orders or pending writes, then alert-watched.
 */
export const SIGNAL_RANK: Readonly<Record<PrioritySignal, number>> = { screen: 4, overview: 3, orders: 2, writes: 2, alerts: 1 }

/** How much more often than an unranked account a ranked one is refreshed through /info (by whole rank, 0..4). */
const RANK_WEIGHT = [1, 2, 3, 4, 5] as const

/**
 * Relative refresh period per channel: balances and credit state are what the overview shows,
 * so they are read most often; open orders and fills (also caught by the next fill backfill)
 * at half that pace.
 */
export const CHANNEL_PERIOD: Readonly<Record<UserChannel, number>> = { spotState: 1, spotCreditState: 1, openOrders: 2, userFills: 2 }

export interface StrictPlan extends StreamPlan {
  /** Accounts with every channel on the socket. */
  live: string[]
}

/** An account's channels: state first (what the overview shows), then fills, then open orders. */
export function channelsOf(a: PlanAccount): Subscription[] {
  const user = a.address.toLowerCase()
  const out: Subscription[] = []
  if (a.kind !== 'credit') out.push({ channel: 'spotState', user })
  if (a.kind !== 'balance') out.push({ channel: 'spotCreditState', user })
  out.push({ channel: 'userFills', user }, { channel: 'openOrders', user })
  return out
}

/**
 * Plans one socket of `per` subscriptions. Accounts go by rank (highest first); within a rank,
 * an account already live stays (no churn of subscriptions, no backfill for nothing), then
 * address order. Whole accounts are placed while they fit; the room left carries the state
 * channel of the next accounts, so their balances stream too. The rest is polled.
 */
export function planStrict(
  accounts: readonly PlanAccount[],
  rankOf: (user: string) => number,
  previousLive: ReadonlySet<string>,
  per = SUBSCRIPTIONS_PER_CONNECTION,
): StrictPlan {
  const seen = new Set<string>()
  const uniq: PlanAccount[] = []
  for (const a of accounts) {
    const k = a.address.toLowerCase()
    if (seen.has(k)) continue
    seen.add(k)
    uniq.push(a)
  }
  const ordered = uniq
    .map((a) => ({
      a,
      user: a.address.toLowerCase(),
      rank: rankOf(a.address.toLowerCase()),
      was: previousLive.has(a.address.toLowerCase()),
    }))
    .sort((x, y) => y.rank - x.rank || Number(y.was) - Number(x.was) || (x.user < y.user ? -1 : x.user > y.user ? 1 : 0))
  const streamed: Subscription[] = []
  const live: string[] = []
  const rest: Subscription[][] = []
  let full = false
  for (const o of ordered) {
    const chans = channelsOf(o.a)
    if (!full && streamed.length + chans.length <= per) {
      streamed.push(...chans)
      live.push(o.user)
    } else {
      // Once an account does not fit, lower-ranked ones may not jump ahead of it.
      full = true
      rest.push(chans)
    }
  }
  const polled: Subscription[] = []
  for (const chans of rest) {
    const state = chans.filter((s) => s.channel === 'spotState' || s.channel === 'spotCreditState')
    if (streamed.length + state.length <= per) streamed.push(...state)
    else polled.push(...state)
    polled.push(...chans.filter((s) => s.channel === 'userFills' || s.channel === 'openOrders'))
  }
  const total = uniq.reduce((n, a) => n + channelsOf(a).length, 0)
  const neededConnections = Math.ceil(total / per)
  const note =
    polled.length > 0
      ? `strict limits: ${live.length} account(s) stream on 1 connection of ${per} subscriptions; ${uniq.length - live.length} are refreshed ` +
        `through /info (${neededConnections} connection(s) would stream everything)`
      : null
  return { connections: streamed.length > 0 ? [streamed] : [], polled, neededConnections, note, live }
}

/** A polled channel and what the refresher knows of it. */
export interface RefreshCandidate {
  sub: Subscription
  rank: number
  /** When its value was last read (or streamed); null = never. */
  at: number | null
}

/**
 * The next polled channel to read through /info, or null when none is due yet (then `wakeAt`
 * says when one will be). A channel is due once its age reaches `minAgeMs x` its channel period;
 * among the due ones, the largest age, weighted by rank and divided by the channel period, goes
 * first: priority order, oldest first, and a low-ranked account is never starved (its weighted
 * age keeps growing until it wins).
 */
export function nextRefresh(
  cands: readonly RefreshCandidate[],
  now: number,
  minAgeMs: number,
): { pick: RefreshCandidate | null; wakeAt: number | null } {
  let pick: RefreshCandidate | null = null
  let best = -Infinity
  let wakeAt: number | null = null
  for (const c of cands) {
    const period = CHANNEL_PERIOD[c.sub.channel]
    if (c.at === null) {
      // Never read: due now, first by rank.
      const score = Number.MAX_SAFE_INTEGER / 8 + c.rank
      if (score > best || (score === best && pick !== null && subscriptionKey(c.sub) < subscriptionKey(pick.sub))) {
        best = score
        pick = c
      }
      continue
    }
    const age = now - c.at
    const dueAt = c.at + minAgeMs * period
    if (age < minAgeMs * period) {
      wakeAt = wakeAt === null ? dueAt : Math.min(wakeAt, dueAt)
      continue
    }
    const score = (age * RANK_WEIGHT[Math.max(0, Math.min(4, Math.floor(c.rank)))]!) / period
    if (score > best || (score === best && pick !== null && subscriptionKey(c.sub) < subscriptionKey(pick.sub))) {
      best = score
      pick = c
    }
  }
  return { pick, wakeAt: pick ? null : wakeAt }
}
