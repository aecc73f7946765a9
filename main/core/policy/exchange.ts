import { createHash } from 'node:crypto'
import { DeskError } from '../errors/desk-error'

/**
 * The exchange a network talks to: its signing domain (the chain id folded into every signed
 * /trade payload, docs/wire-profile.md) and its service hosts (scheme, host and port of the
 * trading and earn URLs). The policy belongs to the exchange, not to the name a network is saved
 * under, so two names for the same exchange share one set of limits, bands and address book.
 */
export interface ExchangeIdentity {
  chainId: number
  trading: string
  earn: string
}

/** What the policy needs to know of a network. */
export interface PolicyNetwork {
  name: string
  kind: string
  chainId: number
  tradingUrl: string
  earnUrl: string
}

const DEFAULT_PORT: Record<string, string> = { 'http:': '80', 'https:': '443', 'ws:': '80', 'wss:': '443' }

/**
 * `scheme://host:port`, lowercase, the port always written and `localhost` as 127.0.0.1 (the same
 * loopback service). The URL parser also folds other spellings of an IP (`2130706433`, `0x7f.1`).
 */
export function serviceOrigin(raw: string): string {
  let u: URL
  try {
    u = new URL(raw)
  } catch {
    throw new DeskError('InvalidNetwork', `not a URL: ${raw.slice(0, 80)}`, { path: 'url' })
  }
  const host = u.hostname.toLowerCase().replace(/\.$/, '')
  const port = u.port || DEFAULT_PORT[u.protocol] || ''
  return `${u.protocol}//${host === 'localhost' ? '127.0.0.1' : host}:${port}`
}

export function exchangeIdentity(n: Pick<PolicyNetwork, 'chainId' | 'tradingUrl' | 'earnUrl'>): ExchangeIdentity {
  return { chainId: n.chainId, trading: serviceOrigin(n.tradingUrl), earn: serviceOrigin(n.earnUrl) }
}

/** The identity as one string (stored in the policy file, so a file is never read for another exchange). */
export function exchangeKey(id: ExchangeIdentity): string {
  return `chain ${id.chainId} trading ${id.trading} earn ${id.earn}`
}

/** A short, file-safe tag for the identity (its file name). */
export function exchangeTag(id: ExchangeIdentity): string {
  return createHash('sha256').update(exchangeKey(id)).digest('hex').slice(0, 16)
}

/** How an operator reads it: "chain 424242 at http://127.0.0.1:47100" (earn named when on another host). */
export function describeExchange(id: ExchangeIdentity): string {
  return `chain ${id.chainId} at ${id.trading}${id.earn === id.trading ? '' : ` (earn ${id.earn})`}`
}
