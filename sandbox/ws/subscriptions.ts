/**
 * Subscription requests of the `/ws` socket: which channels exist, what topic each takes,
 * and the refusal texts (trading-api §4: a refused request gets an error text echoing it).
 */

export const MARKET_CHANNELS = ['trades', 'l2Book', 'bbo'] as const
export const USER_CHANNELS = ['userFills', 'orderUpdates', 'openOrders', 'spotState', 'spotCreditState'] as const
export type MarketChannel = (typeof MARKET_CHANNELS)[number]
export type UserChannel = (typeof USER_CHANNELS)[number]
export type Channel = MarketChannel | UserChannel | 'allMids'

export type Topic = { channel: MarketChannel; coin: string } | { channel: UserChannel; user: string } | { channel: 'allMids' }

/** Stable identity of a topic: `l2Book:1`, `userFills:0xabc…`, `allMids`. */
export function topicKey(t: Topic): string {
  if ('coin' in t) return `${t.channel}:${t.coin}`
  if ('user' in t) return `${t.channel}:${t.user}`
  return t.channel
}

const ADDRESS = /^0x[0-9a-fA-F]{40}$/
const MARKET_ID = /^(0|[1-9][0-9]*)$/

export type ParsedSubscription = { ok: true; topic: Topic } | { ok: false; error: string }

/**
 * Validates `subscription` of a subscribe/unsubscribe request. `rawRequest` is the full request
 * text, echoed in refusals; `marketExists` checks market topics.
 */
export function parseSubscription(subscription: unknown, rawRequest: string, marketExists: (id: string) => boolean): ParsedSubscription {
  const echo = rawRequest.length > 2000 ? rawRequest.slice(0, 2000) + '…' : rawRequest
  if (typeof subscription !== 'object' || subscription === null || Array.isArray(subscription)) {
    return { ok: false, error: `Invalid subscription: ${echo}` }
  }
  const s = subscription as Record<string, unknown>
  const type = s.type
  if ((MARKET_CHANNELS as readonly unknown[]).includes(type)) {
    const coin = s.coin
    if (typeof coin !== 'string' || !MARKET_ID.test(coin))
      return { ok: false, error: `Invalid coin (expected a market_id string): ${echo}` }
    if (!marketExists(coin)) return { ok: false, error: `Unknown market: ${echo}` }
    return { ok: true, topic: { channel: type as MarketChannel, coin } }
  }
  if ((USER_CHANNELS as readonly unknown[]).includes(type)) {
    const user = s.user
    if (typeof user !== 'string' || !ADDRESS.test(user)) return { ok: false, error: `Invalid user address: ${echo}` }
    return { ok: true, topic: { channel: type as UserChannel, user: user.toLowerCase() } }
  }
  if (type === 'allMids') return { ok: true, topic: { channel: 'allMids' } }
  return { ok: false, error: `Unsupported subscription type: ${echo}` }
}
