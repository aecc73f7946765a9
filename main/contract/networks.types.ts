/** The networks feature's views: a network as the app shows it, and as `networks.list` lists it. */

export type NetworkKind = 'sandbox' | 'testnet' | 'mainnet' | 'custom'

export interface NetworkView {
  name: string
  kind: NetworkKind
  chainId: number
  tradingUrl: string
  wsUrl: string
  earnUrl: string
  infoRatePerSec: number
  tradeRatePerSec: number
  /**
   * Strict limits in force (one connection, 10 subscriptions, 30 new connections a minute): always on a
   * real network, on the sandbox unless turned off
   */
  strictLimits: boolean
  configured: boolean
}

/** A configured network as `networks.list` gives it: the view and its environment's `network` name. */
export interface NetworkListing extends NetworkView {
  network: string
}
