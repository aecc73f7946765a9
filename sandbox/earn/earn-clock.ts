/**
 * The pool's time-driven moves: payout stages and yield distributions. They are applied lazily,
 * when the pool is next asked, against the injected clock, so a fake clock drives them
 * deterministically and a restart catches up.
 */
import { keccak256, stringToHex } from 'viem'
import type { EarnBook } from './earn-book'
import type { EarnFaults, WithdrawalState } from './earn-records'
import type { EarnPoolSettings } from './pool-settings'

export const fakeHash = (seed: string) => keccak256(stringToHex(seed))

/** The first yield distribution after `t` (never, when distributions are off). */
export function distributionAfter(settings: EarnPoolSettings, t: number): number {
  const p = settings.yieldPeriodMs
  return p > 0 ? (Math.floor(t / p) + 1) * p : Number.MAX_SAFE_INTEGER
}

/** Applies every move due at `now`: payout stages, then yield distributions. True when anything moved. */
export function applyDueMoves(book: EarnBook, settings: EarnPoolSettings, faults: EarnFaults, now: number): boolean {
  let moved = false
  const stage = settings.payoutStageMs
  for (const w of book.withdrawals) {
    if (w.held) continue
    while (now >= w.stageSince + stage) {
      const at = w.stageSince + stage
      if (w.status === 'created') w.status = 'authorizing'
      else if (w.status === 'authorizing') w.status = 'authorized'
      else if (w.status === 'authorized') {
        w.status = 'transferring'
        w.coreTxHash = fakeHash(`payout:${w.operationId}`)
        if (w.fee > 0n) w.feeCoreTxHash = fakeHash(`fee:${w.operationId}`)
      } else if (w.status === 'transferring') {
        if (faults.manualReview) {
          w.status = 'manual_review'
          w.failureCode = 'payout_transfer_failed'
          w.failureMessage = 'payout transfer failed; held for manual review'
        } else finishPayout(book, w, at)
      } else break
      w.stageSince = at
      moved = true
    }
  }
  const period = settings.yieldPeriodMs
  if (period > 0 && now >= book.nextDistributionAt) {
    const missed = Math.floor((now - book.nextDistributionAt) / period) + 1
    if (missed > settings.maxCatchUpDistributions) book.nextDistributionAt += (missed - settings.maxCatchUpDistributions) * period
    while (now >= book.nextDistributionAt) {
      distribute(book, settings, book.nextDistributionAt)
      book.nextDistributionAt += period
    }
    moved = true
  }
  return moved
}

/** The payout left the pool: the withdrawn amount leaves the queue (or the lock) for good. */
export function finishPayout(book: EarnBook, w: WithdrawalState, at: number): void {
  const b = book.bucket(w.user, w.assetId)
  if (w.type === 'scheduled') {
    b.inQueue -= w.gross
    w.status = 'claimed'
  } else {
    b.locked -= w.gross
    w.status = 'completed'
  }
  b.lifetimeWithdraw += w.gross
  b.activeOperationId = ''
  w.completedAt = at
  w.failureCode = null
  w.failureMessage = null
}

/** One yield distribution: each earning balance grows by its share of the asset's APY over one period. */
function distribute(book: EarnBook, settings: EarnPoolSettings, at: number): void {
  book.distributionSeq += 1
  const year = 365n * 24n * 3600n * 1000n
  for (const a of settings.assets) {
    if (a.apy_bps === null || a.apy_bps <= 0) continue
    const distributionId = fakeHash(`distribution:${book.distributionSeq}:${a.asset_id}`).slice(2, 26)
    for (const [user, m] of book.buckets) {
      const b = m.get(a.asset_id)
      if (!b || b.earn <= 0n) continue
      const amount = (b.earn * BigInt(a.apy_bps) * BigInt(settings.yieldPeriodMs)) / (10_000n * year)
      if (amount === 0n) continue
      book.yields.push({ id: book.nextId++, distributionId, user, assetId: a.asset_id, snapshotBalance: b.earn, amount, appliedAt: at })
      b.earn += amount
      b.lifetimeYield += amount
    }
  }
}
