/** The stream pool's status. */

export interface StreamStatus {
  connected: boolean
  connections: number
  /** the service's counted WebSocket connections per IP (trading-api.md) */
  connectionLimit: number
  /** connections the subscriptions need at 10 per connection */
  neededConnections: number
  /** connections opened in the last minute, against the service's counted new connections per minute */
  newConnectionsLastMinute?: number
  newConnectionLimitPerMinute?: number
  subscriptions: number
  lastMessageAt: number | null
  reconnects: number
  /** frames dropped as garbage (unreadable, unknown channel, wrong shape) */
  droppedFrames: number
  detail: string
  /** Strict limits in force: one connection, the rest refreshed through /info in turn (absent: a host that does not stream) */
  strict?: boolean
  /** accounts with every channel streaming now */
  liveAccounts?: number
  /** the least fresh account's address and when its balances were current (null: never read) */
  leastFreshUser?: string | null
  leastFreshAt?: number | null
  /** subscriptions moved in or out of the live set since start */
  rotations?: number
}
