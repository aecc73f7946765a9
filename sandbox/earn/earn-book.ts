/**
 * Everything the earn pool remembers: balances per (user, asset), nonces, the withdrawal queue,
 * deposits, yield entries and the counters that name new ones; with the accounting identity that
 * must hold over them and their snapshot for restarts.
 */
import type { BucketState, DepositState, EarnSnapshot, WithdrawalState, YieldState } from './earn-records'

export class EarnBook {
  nextId = 1
  coreHeight = 1
  bridgeNonce = 1
  distributionSeq = 0
  paused = false
  readonly buckets = new Map<string, Map<number, BucketState>>()
  readonly nonces = new Map<string, number>()
  readonly withdrawals: WithdrawalState[] = []
  readonly byOperation = new Map<string, WithdrawalState>()
  readonly deposits: DepositState[] = []
  readonly yields: YieldState[] = []

  constructor(public nextDistributionAt: number) {}

  /** The balances of (user, asset), created empty on first use. */
  bucket(user: string, assetId: number): BucketState {
    let m = this.buckets.get(user)
    if (!m) this.buckets.set(user, (m = new Map()))
    let b = m.get(assetId)
    if (!b) {
      b = { earn: 0n, inQueue: 0n, locked: 0n, lifetimeDeposit: 0n, lifetimeYield: 0n, lifetimeWithdraw: 0n, activeOperationId: '' }
      m.set(assetId, b)
    }
    return b
  }

  /** Total earning balance of an asset across users. */
  tvl(assetId: number): bigint {
    let sum = 0n
    for (const m of this.buckets.values()) sum += m.get(assetId)?.earn ?? 0n
    return sum
  }

  addWithdrawal(w: WithdrawalState): void {
    this.withdrawals.push(w)
    this.byOperation.set(w.operationId, w)
  }

  /** Identity violations (empty when every (user, asset) balances). */
  checkIdentity(): string[] {
    const bad: string[] = []
    for (const [user, m] of this.buckets)
      for (const [asset, b] of m) {
        const lhs = b.lifetimeDeposit + b.lifetimeYield - b.lifetimeWithdraw
        const rhs = b.earn + b.inQueue + b.locked
        if (lhs !== rhs || b.earn < 0n || b.inQueue < 0n || b.locked < 0n) bad.push(`${user}/${asset}: ${lhs} != ${rhs}`)
      }
    return bad
  }

  snapshot(): EarnSnapshot {
    const big = (o: object) => JSON.parse(JSON.stringify(o, (_k, val) => (typeof val === 'bigint' ? `${val}n` : val)))
    return {
      version: 1,
      nextId: this.nextId,
      coreHeight: this.coreHeight,
      bridgeNonce: this.bridgeNonce,
      distributionSeq: this.distributionSeq,
      nextDistributionAt: this.nextDistributionAt,
      paused: this.paused,
      nonces: [...this.nonces.entries()],
      buckets: [...this.buckets.entries()].map(([u, m]) => [u, [...m.entries()].map(([a, b]) => [a, big(b)])]),
      withdrawals: this.withdrawals.map(big),
      deposits: this.deposits.map(big),
      yields: this.yields.map(big),
    } as EarnSnapshot
  }

  restore(s: EarnSnapshot): void {
    if (s.version !== 1) throw new Error(`unsupported earn snapshot version ${String(s.version)}`)
    const revive = <T>(o: unknown): T =>
      JSON.parse(JSON.stringify(o), (_k, val) => (typeof val === 'string' && /^-?\d+n$/.test(val) ? BigInt(val.slice(0, -1)) : val))
    this.nextId = s.nextId
    this.coreHeight = s.coreHeight
    this.bridgeNonce = s.bridgeNonce
    this.distributionSeq = s.distributionSeq
    this.nextDistributionAt = s.nextDistributionAt
    this.paused = s.paused
    this.nonces.clear()
    for (const [u, n] of s.nonces) this.nonces.set(u, n)
    this.buckets.clear()
    for (const [u, entries] of s.buckets) this.buckets.set(u, new Map(entries.map(([a, b]) => [a, revive<BucketState>(b)])))
    this.withdrawals.length = 0
    this.byOperation.clear()
    for (const w of s.withdrawals.map((x) => revive<WithdrawalState>(x))) this.addWithdrawal(w)
    this.deposits.splice(0, this.deposits.length, ...s.deposits.map((x) => revive<DepositState>(x)))
    this.yields.splice(0, this.yields.length, ...s.yields.map((x) => revive<YieldState>(x)))
  }
}
