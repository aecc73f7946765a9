/**
 * Which account channels go on the sockets. Live balances (`spotState`) and credit state
 * (`spotCreditState`) cover every account first, then fills, then open orders; whatever does
 * not fit in `connections x 10` subscriptions is refreshed through /info instead.
 * `orderUpdates` is not used: its frames carry no owner, so they cannot be attributed once
 * several accounts share a socket; `openOrders` snapshots and `userFills` carry the same facts.
 */
export const SUBSCRIPTIONS_PER_CONNECTION = 10

export type AccountKind = 'balance' | 'credit' | 'unknown'
export type UserChannel = 'spotState' | 'spotCreditState' | 'userFills' | 'openOrders'

export interface PlanAccount {
  address: string
  kind: AccountKind
}

export interface Subscription {
  channel: UserChannel
  user: string
}

export interface StreamPlan {
  /** Subscriptions per socket, at most 10 each. */
  connections: Subscription[][]
  /** Wanted but not streamed: refreshed through /info within the rate budget. */
  polled: Subscription[]
  /** Sockets needed to stream everything. */
  neededConnections: number
  /** Operator-facing note when more sockets are used or needed than the spec's one per IP. */
  note: string | null
}

export function subscriptionKey(s: Subscription): string {
  return `${s.channel}:${s.user.toLowerCase()}`
}

/** Channels an account wants, by tier (tier 0 first). A credit account has an empty balance list. */
function wanted(accounts: readonly PlanAccount[]): Subscription[][] {
  const state: Subscription[] = []
  const fills: Subscription[] = []
  const orders: Subscription[] = []
  for (const a of accounts) {
    const user = a.address.toLowerCase()
    if (a.kind !== 'credit') state.push({ channel: 'spotState', user })
    if (a.kind !== 'balance') state.push({ channel: 'spotCreditState', user })
    fills.push({ channel: 'userFills', user })
    orders.push({ channel: 'openOrders', user })
  }
  return [state, fills, orders]
}

/**
 * Plans subscriptions for `accounts`. `maxConnections` undefined means "the fewest that fit
 * everything"; a number caps the sockets and the rest is polled.
 */
export function planSubscriptions(
  accounts: readonly PlanAccount[],
  opts: { maxConnections?: number; perConnection?: number; previous?: StreamPlan } = {},
): StreamPlan {
  const per = opts.perConnection ?? SUBSCRIPTIONS_PER_CONNECTION
  const seen = new Set<string>()
  const uniq = accounts.filter((a) => {
    const k = a.address.toLowerCase()
    if (seen.has(k)) return false
    seen.add(k)
    return true
  })
  const tiers = wanted(uniq)
  const total = tiers.reduce((n, t) => n + t.length, 0)
  const neededConnections = Math.ceil(total / per)
  const conns = opts.maxConnections === undefined ? neededConnections : Math.max(0, Math.floor(opts.maxConnections))
  let capacity = conns * per
  const streamed: Subscription[] = []
  const polled: Subscription[] = []
  for (const tier of tiers) {
    for (const s of tier) {
      if (capacity > 0) {
        streamed.push(s)
        capacity--
      } else polled.push(s)
    }
  }
  const connections = place(streamed, per, opts.previous)
  let note: string | null = null
  if (polled.length > 0) {
    note =
      `${polled.length} account channel(s) do not fit in ${conns} connection(s) of ${per} subscriptions and are refreshed through /info; ` +
      `${neededConnections} connection(s) would stream everything`
  } else if (connections.length > 1) {
    note = `streaming uses ${connections.length} connections; the service counts 1 connection per IP`
  }
  return { connections, polled, neededConnections, note }
}

/**
 * Spreads `streamed` over the fewest sockets. With a previous plan, a topic stays on the socket
 * it was on (a re-plan then sends only the difference: no unsubscribe here and subscribe there,
 * no gap in the topic's frames); new topics fill the room left, in tier order.
 */
function place(streamed: readonly Subscription[], per: number, previous: StreamPlan | undefined): Subscription[][] {
  const count = Math.ceil(streamed.length / per)
  const buckets: Subscription[][] = Array.from({ length: count }, () => [])
  const was = new Map<string, number>()
  previous?.connections.forEach((subs, i) => subs.forEach((s) => was.set(subscriptionKey(s), i)))
  const rest: Subscription[] = []
  for (const s of streamed) {
    const i = was.get(subscriptionKey(s))
    if (i !== undefined && i < count && buckets[i]!.length < per) buckets[i]!.push(s)
    else rest.push(s)
  }
  let b = 0
  for (const s of rest) {
    while (buckets[b]!.length >= per) b++
    buckets[b]!.push(s)
  }
  return buckets
}
