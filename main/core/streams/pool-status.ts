import type { MinuteConnectBudget } from './connect-budget'
import { NEW_CONNECTIONS_PER_MINUTE } from './connect-budget'
import type { StreamConnection } from './connection'
import type { LiveAccountState } from './live-state'
import type { PlanAccount, StreamPlan } from './plan'
import type { PoolStatus } from './pool-options'

/** Spec section 8: connections per IP (counted, not yet enforced). */
export const CONNECTION_LIMIT_PER_IP = 1

/**
 * What a status change is made of, without the per-account walk of `status()`: whether the
 * stream is connected, its sockets and subscriptions, reconnects and dropped frames.
 */
export function linkKeyOf(conns: readonly StreamConnection[], droppedHere: number): string {
  let open = 0
  let connected = true
  let subs = 0
  let reconnects = 0
  let dropped = droppedHere
  for (const c of conns) {
    if (c.state === 'open') open++
    else if (c.hasOpened) connected = false
    subs += c.subscriptions.length
    reconnects += c.reconnects
    dropped += c.dropped
  }
  return `${open > 0 && connected}/${conns.length}/${subs}/${reconnects}/${dropped}`
}

/**
 * The least fresh account: the one whose balances (credit state for a credit account) were
 * current the longest ago. A streaming channel is current now. `at` null: never read.
 */
export function leastFreshOf(
  accounts: readonly PlanAccount[],
  now: number,
  stateOf: (user: string) => LiveAccountState,
  isLive: (user: string, channel: 'spotState' | 'spotCreditState', at: number) => boolean,
): { user: string; at: number | null } | null {
  let worst: { user: string; at: number | null } | null = null
  // (one closure for the walk, not one per account: this runs on every status)
  const when = (user: string, ch: 'spotState' | 'spotCreditState', v: { at: number } | null): number | null =>
    v === null ? null : isLive(user, ch, v.at) ? now : v.at
  for (const a of accounts) {
    const user = a.address.toLowerCase()
    const st = stateOf(user)
    const b = a.kind === 'credit' ? null : when(user, 'spotState', st.balances)
    const c = a.kind === 'balance' ? null : when(user, 'spotCreditState', st.credit)
    const at = a.kind === 'credit' ? c : a.kind === 'balance' ? b : b === null ? c : c === null ? b : Math.max(b, c)
    if (worst === null || (worst.at !== null && (at === null || at < worst.at))) worst = { user, at }
  }
  return worst
}

/** What the pool's status is computed from. */
export interface PoolStatusInput {
  conns: readonly StreamConnection[]
  plan: StreamPlan
  lastProblem: string | null
  budget: MinuteConnectBudget
  now: number
  leastFresh: () => { user: string; at: number | null } | null
  droppedHere: number
  gapBackfills: number
  strict: boolean
  liveAccounts: () => number
  rotations: number
}

/** The pool's status for the operator: sockets, subscriptions, limits, the least fresh account. */
export function poolStatusOf(s: PoolStatusInput): PoolStatus {
  const conns = s.conns
  const open = conns.filter((c) => c.state === 'open')
  const last = conns.reduce<number | null>(
    (m, c) => (c.lastMessageAt !== null && (m === null || c.lastMessageAt > m) ? c.lastMessageAt : m),
    null,
  )
  const parts: string[] = []
  parts.push(`${open.length}/${conns.length} connection(s) open`)
  if (s.plan.note) parts.push(s.plan.note)
  if (s.lastProblem) parts.push(`last problem: ${s.lastProblem}`)
  const wait = s.budget.delayMs(s.now)
  if (wait > 0 && conns.some((c) => c.state === 'waiting'))
    parts.push(`${NEW_CONNECTIONS_PER_MINUTE} new connections in the last minute: the next one waits ${Math.ceil(wait / 1000)} s`)
  const fresh = s.leastFresh()
  return {
    // A socket the plan just added and that is still opening is not a drop: the operator is
    // told "disconnected" only when a socket that was open is not any more.
    connected: open.length > 0 && conns.every((c) => c.state === 'open' || !c.hasOpened),
    connections: conns.length,
    subscriptions: conns.reduce((n, c) => n + c.subscriptions.length, 0),
    lastMessageAt: last,
    reconnects: conns.reduce((n, c) => n + c.reconnects, 0),
    detail: parts.join('; '),
    connectionLimit: CONNECTION_LIMIT_PER_IP,
    neededConnections: s.plan.neededConnections,
    newConnectionsLastMinute: s.budget.count,
    newConnectionLimitPerMinute: NEW_CONNECTIONS_PER_MINUTE,
    droppedFrames: conns.reduce((n, c) => n + c.dropped, 0) + s.droppedHere,
    gapBackfills: s.gapBackfills,
    strict: s.strict,
    liveAccounts: s.liveAccounts(),
    leastFreshUser: fresh?.user ?? null,
    leastFreshAt: fresh?.at ?? null,
    rotations: s.rotations,
  }
}
