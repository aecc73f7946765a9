import type { ConnectBudget } from './connection'

/** Spec section 8: new connections per IP per minute (counted, not yet enforced). */
export const NEW_CONNECTIONS_PER_MINUTE = 30

/** The pool's connection attempts of the last minute: once 30 were made, the next waits for the oldest to age out. */
export class MinuteConnectBudget implements ConnectBudget {
  private readonly attempts: number[] = []

  delayMs(now: number): number {
    this.prune(now)
    const a = this.attempts
    return a.length < NEW_CONNECTIONS_PER_MINUTE ? 0 : a[0]! + 60_000 - now
  }

  record(now: number): void {
    this.attempts.push(now)
  }

  /** Attempts within the last minute as of the latest `delayMs`. */
  get count(): number {
    return this.attempts.length
  }

  private prune(now: number): void {
    const a = this.attempts
    while (a.length > 0 && a[0]! <= now - 60_000) a.shift()
  }
}
