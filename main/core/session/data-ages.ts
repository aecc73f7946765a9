import { DeskError } from '../errors/desk-error'
import type { StreamPool } from '../streams/pool'

/**
 * How old the account data used by previews and writes is: what each account's last read
 * used, and its latest /info read, judged against the age limit at signing time.
 */
export class DataAges {
  /** account -> time the data last used for it was current */
  private readonly used = new Map<string, { at: number; usedAt: number }>()
  /** account -> time of its latest successful /info account read */
  private readonly infoReadAt = new Map<string, number>()

  constructor(
    private readonly pool: StreamPool | null,
    private readonly now: () => number,
    private readonly maxAgeMs: number,
  ) {}

  /** Age (ms) of the oldest data last used for any of `accounts`; null when none was read. */
  dataAgeMs(accounts: readonly string[]): number | null {
    let oldest: number | null = null
    for (const a of accounts) {
      const at = this.used.get(a.toLowerCase())?.at
      if (at !== undefined && (oldest === null || at < oldest)) oldest = at
    }
    return oldest === null ? null : Math.max(0, this.now() - oldest)
  }

  /**
   * Re-validates, at signing time, the data a write was checked against: for each of
   * `accounts` read for it, the data is still current when its channel streams or its last
   * frame or /info read is within the limit. Otherwise `StaleData` (a confirmation dialog
   * left open for minutes while the stream was down must not sign on what it showed).
   * Accounts never read here (an external destination) are not judged.
   */
  assertFresh(accounts: readonly string[]): void {
    const now = this.now()
    for (const a of accounts) {
      const u = a.toLowerCase()
      if (!this.used.has(u)) continue
      const ageMs = this.currentAgeMs(u, now)
      if (ageMs <= this.maxAgeMs) continue
      throw new DeskError(
        'StaleData',
        `the data of ${u} is ${Math.round(ageMs / 1000)} s old, over the ${Math.round(this.maxAgeMs / 1000)} s limit ` +
          '(the stream stopped while the confirmation was open); nothing was signed. Preview again.',
        { account: u, ageMs, limitMs: this.maxAgeMs },
      )
    }
  }

  /** How old the freshest data of `user` is now: 0 while a channel streams, else its last frame or /info read. */
  private currentAgeMs(user: string, now: number): number {
    let newest = this.infoReadAt.get(user) ?? -Infinity
    const pool = this.pool
    if (pool) {
      const st = pool.state(user)
      for (const [ch, slot] of [
        ['spotState', st.balances],
        ['spotCreditState', st.credit],
      ] as const) {
        if (!slot) continue
        if (pool.isLive(user, ch, slot.at)) return 0
        newest = Math.max(newest, slot.at)
      }
    }
    return newest === -Infinity ? Infinity : Math.max(0, now - newest)
  }

  /** Data of `user` current as of `at` was used now. */
  use(user: string, at: number): void {
    const now = this.now()
    const prev = this.used.get(user)
    // Several reads make one preview: keep the oldest data of the reads within the last second.
    this.used.set(user, { at: prev !== undefined && now - prev.usedAt < 1000 ? Math.min(prev.at, at) : at, usedAt: now })
  }

  /** `user` was read through /info at `at`. */
  infoRead(user: string, at: number): void {
    this.infoReadAt.set(user, at)
  }
}
