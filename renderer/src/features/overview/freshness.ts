import { formatAccount, formatAge } from '../../../../main/contract/format'
import type { OverviewRow, StreamStatus } from '../../../../main/contract/types'
import { liveSplit } from '../session'

/**
 * How a row's data age reads. 'live' only when main says the row's channel streams now
 * (`source: 'live'`) and the stream is connected: a socket that misses its heartbeat is closed
 * and reported at once, so nothing older than the heartbeat reads as live. 'in-turn': strict
 * mode refreshes this account through /info in turn. 'age': the age as read.
 */
export function rowFreshness(r: OverviewRow, stream: StreamStatus | null): 'live' | 'in-turn' | 'age' {
  if (r.source === 'live' && stream?.connected === true) return 'live'
  if (stream?.strict === true && r.source === 'info') return 'in-turn'
  return 'age'
}

/** "Least fresh: Treasury B (0x12ab…cd34), 42s ago · 3 accounts live, 17 refreshed in turn"; null before the pool says. */
export function leastFreshText(stream: StreamStatus | null, rows: readonly OverviewRow[], nowMs: number): string | null {
  if (!stream || stream.leastFreshUser === undefined) return null
  const split = stream.strict ? liveSplit(stream, rows.length) : null
  const tail = split ? ` · ${split}` : ''
  if (stream.leastFreshUser === null) return split ? split.charAt(0).toUpperCase() + split.slice(1) : null
  const user = stream.leastFreshUser.toLowerCase()
  const row = rows.find((r) => r.account.address.toLowerCase() === user)
  const who = formatAccount(row ? { address: row.account.address, label: row.account.label } : stream.leastFreshUser).text
  const age = stream.leastFreshAt === null || stream.leastFreshAt === undefined ? 'not read yet' : formatAge(stream.leastFreshAt, nowMs)
  return `Least fresh: ${who}, ${age}${tail}`
}
