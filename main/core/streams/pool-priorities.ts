import { SIGNAL_RANK, type PrioritySignal } from './strict-plan'

/** Strict mode's ranking of accounts: the signals the desk sets, and the accounts seen with open orders. */
export class PoolPriorities {
  private readonly signals = new Map<PrioritySignal, Set<string>>()
  /** Users with open orders as last seen (strict mode ranks them). */
  private readonly withOrders = new Set<string>()

  /** Sets the users of one signal; false when the set of users did not change. */
  set(signal: PrioritySignal, users: readonly string[]): boolean {
    const next = new Set(users.map((u) => u.toLowerCase()))
    const prev = this.signals.get(signal)
    if (prev && prev.size === next.size && [...next].every((u) => prev.has(u))) return false
    this.signals.set(signal, next)
    return true
  }

  /**
   * An account's rank: the highest of its signals (0: none), plus a tenth of its next one, so
   * among the overview's rows (every account, unfiltered) those with orders or writes come first.
   */
  rankOf(user: string): number {
    const u = user.toLowerCase()
    const ranks = this.withOrders.has(u) ? [SIGNAL_RANK.orders] : []
    for (const [sig, set] of this.signals) if (set.has(u)) ranks.push(SIGNAL_RANK[sig])
    const [first = 0, second = 0] = [...new Set(ranks)].sort((a, b) => b - a)
    return first + second / 10
  }

  /** An account gained or lost its last open order; false when nothing changed. */
  noteHasOrders(user: string, has: boolean): boolean {
    if (this.withOrders.has(user) === has) return false
    if (has) this.withOrders.add(user)
    else this.withOrders.delete(user)
    return true
  }
}
