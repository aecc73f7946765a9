import type { StreamStatus } from '../../../../main/contract/types'

/**
 * The top bar's stream indicator in words (issue 24 item 4, issue 25 strict mode). It warns only
 * when the desk exceeds what the service counts (trading-api.md section 8: 1 connection per IP,
 * 30 new connections a minute, both counted and not yet refused) or when the stream is down.
 * Several sockets with strict limits off on the sandbox are a warning too: that desk would go
 * dark the day the service enforces what it counts. Channels that do not fit are refreshed
 * through /info in turn; that is how strict mode works, not a fault.
 */
export interface StreamWords {
  tone: 'ok' | 'warn' | 'down'
  /** the few words on the button (the accessible name starts with them) */
  short: string
  /** what the indicator means, in one sentence */
  meaning: string
}

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`
/** The service's subscription cap per connection (enforced). */
const SUBS_PER_CONNECTION = 10

/** Whether the new-connection budget of the last minute is spent (the next socket waits). */
export function budgetSpent(s: StreamStatus): boolean {
  const limit = s.newConnectionLimitPerMinute
  return limit !== undefined && (s.newConnectionsLastMinute ?? 0) >= limit
}

/** "3 accounts live, 17 refreshed in turn" (strict mode), or null when the pool says nothing about it. */
export function liveSplit(s: StreamStatus, accounts: number | null): string | null {
  if (s.liveAccounts === undefined) return null
  const live = `${plural(s.liveAccounts, 'account')} live`
  if (!s.strict) return live
  if (accounts === null) return `${live}, the rest refreshed in turn`
  return `${live}, ${Math.max(0, accounts - s.liveAccounts)} refreshed in turn`
}

export function streamWords(s: StreamStatus, accounts: number | null): StreamWords {
  const conns =
    s.connections === s.connectionLimit
      ? `${plural(s.connections, 'connection')} of the ${s.connectionLimit} the service counts`
      : `${plural(s.connections, 'connection')}, the service counts ${s.connectionLimit}`
  const subs = `${s.subscriptions} of ${plural(Math.max(1, s.connections) * SUBS_PER_CONNECTION, 'subscription')}`
  const split = liveSplit(s, accounts)
  const facts = [conns, subs, ...(split ? [split] : [])].join('; ')
  // Nothing to follow (no accounts yet, the first-run screen): no stream is needed, so none is "down".
  if (accounts === 0 && s.subscriptions === 0)
    return { tone: 'ok', short: 'No accounts', meaning: 'no accounts to follow yet: the stream opens once there are some' }
  if (!s.connected) return { tone: 'down', short: 'Stream down', meaning: `stream down, values age until it reconnects; ${facts}` }
  if (budgetSpent(s)) {
    return {
      tone: 'warn',
      short: 'Connection budget spent',
      meaning:
        `${s.newConnectionsLastMinute} of the ${s.newConnectionLimitPerMinute} new connections a minute the service counts are spent: ` +
        `the next one waits; ${facts}`,
    }
  }
  if (s.connections > s.connectionLimit) {
    if (s.strict === false) {
      return {
        tone: 'warn',
        short: 'Limits off',
        meaning:
          `strict limits off on this sandbox: ${plural(s.connections, 'connection')}, ` +
          `the service counts ${s.connectionLimit} — not enforced yet; ${subs}`,
      }
    }
    return { tone: 'warn', short: `${s.connections} connections`, meaning: `${facts}; more connections than the service counts` }
  }
  return { tone: 'ok', short: 'Live', meaning: facts }
}
