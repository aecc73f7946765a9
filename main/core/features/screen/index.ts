export { ScreenLeases, LEASE_TTL_MS, type ScreenSource, type ScreenLeasesDeps, type ScreenTarget } from './screen-leases'
export { screenHandlers, senderOf, type ScreenChannels } from './handlers'
