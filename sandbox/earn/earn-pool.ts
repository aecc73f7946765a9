/**
 * The sandbox earn pool: balances, deposits, yield, withdrawals and their status machine.
 *
 * This class answers the earn API's reads and writes. What it remembers is the book (earn-book);
 * time-driven moves are applied lazily by `advance()` (earn-clock); records are shown through
 * earn-views. Amounts are bigint atoms; the per-asset identity
 *   lifetime_deposit + lifetime_yield − lifetime_withdraw = earn + in_queue + withdraw_locked
 * holds after every operation (checked by `checkIdentity`).
 */
import type {
  DepositEntry,
  EarnAccount,
  EarnBalance,
  EarnConfig,
  EarnPage,
  WithdrawalDetail,
  WithdrawalRecord,
  WithdrawalStatus,
  WithdrawType,
  YieldEntry,
} from '../../main/core/wire/earn'
import { formatAtoms } from '../../main/core/money/decimal'
import { EarnBook } from './earn-book'
import { applyDueMoves, distributionAfter, fakeHash, finishPayout } from './earn-clock'
import {
  invalid,
  type DepositInput,
  type DepositState,
  type EarnFaults,
  type EarnSnapshot,
  type PageQuery,
  type WithdrawalState,
} from './earn-records'
import { depositEntry, page, withdrawalRecord, yieldEntry } from './earn-views'
import { BALANCE_DECIMALS, type EarnAssetSettings, type EarnPoolSettings } from './pool-settings'

export {
  EarnReject,
  type BucketState,
  type DepositInput,
  type DepositState,
  type EarnFaults,
  type EarnSnapshot,
  type PageQuery,
  type WithdrawalState,
  type YieldState,
} from './earn-records'

const lower = (a: string) => a.toLowerCase()

export class EarnPool {
  readonly settings: EarnPoolSettings
  readonly faults: EarnFaults = { unavailable: false, timeout: null, manualReview: false }
  private readonly now: () => number
  private readonly book: EarnBook
  private readonly changeListeners = new Set<() => void>()

  constructor(settings: EarnPoolSettings, now: () => number = Date.now) {
    this.settings = settings
    this.now = now
    this.book = new EarnBook(distributionAfter(settings, now()))
  }

  /** Withdrawals paused by the admin (persisted with the book). */
  get paused(): boolean {
    return this.book.paused
  }
  set paused(value: boolean) {
    this.book.paused = value
  }

  onChange(listener: () => void): () => void {
    this.changeListeners.add(listener)
    return () => this.changeListeners.delete(listener)
  }
  private changed(): void {
    for (const l of this.changeListeners) l()
  }

  asset(assetId: number): EarnAssetSettings | undefined {
    return this.settings.assets.find((a) => a.asset_id === assetId)
  }

  // ------------------------------------------------------------------------------ reads

  config(): EarnConfig {
    this.advance()
    const s = this.settings
    return {
      native_chain_id: s.chainId,
      vault_address: s.vaultAddress,
      fee_wallet_address: s.feeWalletAddress,
      snapshot_time_utc: '00:00:00.000',
      withdrawal_paused: this.paused,
      eip712_domain: { ...s.domain },
      assets: s.assets.map((a) => {
        const out: EarnConfig['assets'][number] = {
          asset_id: a.asset_id,
          symbol: a.symbol,
          balance_decimals: BALANCE_DECIMALS,
          deposit_enabled: a.deposit_enabled,
          scheduled_withdraw_enabled: a.scheduled_withdraw_enabled,
          instant_withdraw_enabled: a.instant_withdraw_enabled,
          withdraw_pending_seconds: s.pendingSeconds,
          instant_fee_bps: a.instant_fee_bps,
          min_withdraw_amount: a.min_withdraw_amount.toString(),
          max_single_withdraw_amount: a.max_single_withdraw_amount.toString(),
        }
        if (a.apy_bps !== null) {
          out.projected_apy = formatAtoms(BigInt(a.apy_bps), 4)
          out.realtime_tvl_amount = this.book.tvl(a.asset_id).toString()
        }
        return out
      }),
    }
  }

  nextNonce(user: string): number {
    return this.book.nonces.get(lower(user)) ?? 0
  }

  account(user: string): EarnAccount {
    this.advance()
    const u = lower(user)
    const balances: EarnBalance[] = []
    const m = this.book.buckets.get(u)
    if (m) {
      for (const [assetId, b] of [...m.entries()].sort((x, y) => x[0] - y[0])) {
        const active = b.activeOperationId ? this.book.byOperation.get(b.activeOperationId) : undefined
        balances.push({
          asset_id: assetId,
          earn_balance: b.earn.toString(),
          in_queue_balance: b.inQueue.toString(),
          withdraw_locked_balance: b.locked.toString(),
          lifetime_deposit: b.lifetimeDeposit.toString(),
          lifetime_yield: b.lifetimeYield.toString(),
          lifetime_withdraw: b.lifetimeWithdraw.toString(),
          active_withdraw_operation_id: b.activeOperationId,
          active_withdrawal: active ? this.record(active) : null,
        })
      }
    }
    return { user_address: u, next_user_nonce: this.nextNonce(u), balances }
  }

  depositsPage(user: string, q: PageQuery): EarnPage<DepositEntry> {
    this.advance()
    const u = lower(user)
    return page(
      this.book.deposits.filter((d) => d.user === u && (q.assetId === undefined || d.assetId === q.assetId)),
      q,
      depositEntry,
    )
  }

  yieldPage(user: string, q: PageQuery): EarnPage<YieldEntry> {
    this.advance()
    const u = lower(user)
    return page(
      this.book.yields.filter((y) => y.user === u && (q.assetId === undefined || y.assetId === q.assetId)),
      q,
      yieldEntry,
    )
  }

  withdrawalsPage(user: string, q: PageQuery & { status?: WithdrawalStatus }): EarnPage<WithdrawalRecord> {
    this.advance()
    const u = lower(user)
    return page(
      this.book.withdrawals.filter(
        (w) => w.user === u && (q.assetId === undefined || w.assetId === q.assetId) && (q.status === undefined || w.status === q.status),
      ),
      q,
      (w) => this.record(w),
    )
  }

  withdrawal(user: string, operationId: string): WithdrawalDetail {
    this.advance()
    const w = this.owned(user, operationId)
    const { core_tx_hash: _a, fee_core_tx_hash: _b, ...detail } = this.record(w)
    return detail
  }

  /** The record (its owner checked); another address's record is "not found", as the spec requires. */
  owned(user: string, operationId: string): WithdrawalState {
    const w = this.book.byOperation.get(lower(operationId))
    if (!w || w.user !== lower(user)) throw invalid('withdrawal not found')
    return w
  }

  record(w: WithdrawalState): WithdrawalRecord {
    return withdrawalRecord(w)
  }

  // ------------------------------------------------------------------------------ writes

  /** Validated, signature-checked create. Throws EarnReject with the spec's messages. */
  createWithdrawal(req: {
    user: string
    userNonce: number
    type: WithdrawType
    assetId: number
    gross: bigint
    deadline: number
  }): WithdrawalRecord {
    this.advance()
    const u = lower(req.user)
    const asset = this.asset(req.assetId)
    if (!asset) throw invalid(`unsupported asset_id: ${req.assetId}`)
    if (this.paused) throw invalid('withdrawals are paused')
    const enabled = req.type === 'scheduled' ? asset.scheduled_withdraw_enabled : asset.instant_withdraw_enabled
    if (!enabled) throw invalid('withdrawal type is disabled for asset')
    const expected = this.nextNonce(u)
    if (req.userNonce !== expected) throw invalid(`user_nonce must equal next_user_nonce ${expected}`)
    const b = this.book.bucket(u, req.assetId)
    if (b.activeOperationId) throw invalid('user asset already has an active withdrawal')
    if (req.gross <= 0n) throw invalid('amount must be greater than 0')
    if (asset.min_withdraw_amount > 0n && req.gross < asset.min_withdraw_amount) throw invalid('withdrawal amount is below minimum')
    if (asset.max_single_withdraw_amount > 0n && req.gross > asset.max_single_withdraw_amount)
      throw invalid('withdrawal amount exceeds maximum')
    if (req.gross > b.earn) throw invalid('insufficient earn balance')

    const now = this.now()
    const feeBps = req.type === 'instant' ? asset.instant_fee_bps : 0
    const fee = (req.gross * BigInt(feeBps)) / 10_000n
    const operationId = `withdraw:${u}:${req.userNonce}`
    const w: WithdrawalState = {
      id: this.book.nextId++,
      operationId,
      user: u,
      userNonce: req.userNonce,
      type: req.type,
      assetId: req.assetId,
      gross: req.gross,
      fee,
      feeBps,
      deadline: req.deadline,
      claimableAt: req.type === 'scheduled' ? now + this.settings.pendingSeconds * 1000 : null,
      status: req.type === 'scheduled' ? 'queued' : 'created',
      createdAt: now,
      stageSince: now,
      coreTxHash: null,
      feeCoreTxHash: null,
      failureCode: null,
      failureMessage: null,
      claimedAt: null,
      cancelledAt: null,
      completedAt: null,
      claimDigest: null,
    }
    b.earn -= req.gross
    if (req.type === 'scheduled') b.inQueue += req.gross
    else b.locked += req.gross
    b.activeOperationId = operationId
    this.book.nonces.set(u, expected + 1)
    this.book.addWithdrawal(w)
    this.changed()
    return this.record(w)
  }

  /**
   * Spec §5: "the first claim attempt binds its digest". Called for every signature-valid claim
   * that reaches the pool, before its deadline or claimability is judged, so a first attempt that
   * then fails (deadline passed, not yet claimable, paused) still binds; any other digest for the
   * same operation is refused from then on.
   */
  bindClaimAttempt(user: string, operationId: string, digest: string): void {
    const w = this.owned(user, operationId)
    if (w.claimDigest === null) {
      w.claimDigest = digest
      this.changed()
      return
    }
    if (w.claimDigest !== digest) throw invalid('withdrawal is not claimable')
  }

  /**
   * Claim. The digest must be the bound one (or binds now); a resend of an accepted claim returns
   * the record again, any other digest is refused (spec §5: never sign a second claim).
   */
  claimWithdrawal(user: string, operationId: string, digest: string): WithdrawalRecord {
    this.advance()
    const w = this.owned(user, operationId)
    if (w.claimDigest !== null && w.claimDigest !== digest) throw invalid('withdrawal is not claimable')
    if (w.claimedAt !== null) return this.record(w)
    if (this.paused) throw invalid('withdrawals are paused')
    if (w.status !== 'queued' || w.claimableAt === null || this.now() < w.claimableAt) throw invalid('withdrawal is not claimable')
    const now = this.now()
    w.claimDigest = digest
    w.claimedAt = now
    w.status = 'authorizing'
    w.stageSince = now
    this.changed()
    return this.record(w)
  }

  cancelWithdrawal(user: string, operationId: string): WithdrawalRecord {
    this.advance()
    const w = this.owned(user, operationId)
    if (w.status !== 'queued' || w.claimableAt === null || this.now() >= w.claimableAt) throw invalid('withdrawal is not cancelable')
    const b = this.book.bucket(w.user, w.assetId)
    b.inQueue -= w.gross
    b.earn += w.gross
    b.activeOperationId = ''
    w.status = 'cancelled'
    w.cancelledAt = this.now()
    this.changed()
    return this.record(w)
  }

  /** Seeding and the faucet: a credited (or rejected) deposit, listed with the right keys for its type. */
  deposit(input: DepositInput): DepositEntry {
    this.advance()
    const u = lower(input.user)
    const asset = this.asset(input.assetId)
    if (!asset) throw invalid(`unsupported asset_id: ${input.assetId}`)
    if (input.amount <= 0n) throw invalid('amount must be greater than 0')
    const type = input.type ?? 'bridge_deposit'
    const height = input.at?.height ?? this.book.coreHeight++
    const srcChainId = input.srcChainId ?? 1
    const operationId =
      type === 'bridge_deposit'
        ? `deposit:${srcChainId}:${lower(this.settings.vaultAddress)}:${this.book.bridgeNonce++}`
        : `direct-transfer:${this.settings.chainId}:${height}:${input.at?.txIndex ?? 0}:${input.at?.eventIndex ?? 0}`
    const status = input.reject || !asset.deposit_enabled ? 'rejected' : 'credited'
    const d: DepositState = {
      id: this.book.nextId++,
      operationId,
      user: u,
      type,
      assetId: input.assetId,
      amount: input.amount,
      status,
      coreHeight: height,
      timestampMs: this.now(),
      srcChainId: type === 'bridge_deposit' ? srcChainId : null,
      srcTxHash: type === 'bridge_deposit' ? fakeHash(`src:${operationId}`) : null,
      coreTxHash: type === 'bridge_deposit' ? fakeHash(`core:${operationId}`) : null,
    }
    this.book.deposits.push(d)
    if (status === 'credited') {
      const b = this.book.bucket(u, input.assetId)
      b.earn += input.amount
      b.lifetimeDeposit += input.amount
    }
    this.changed()
    return depositEntry(d)
  }

  /**
   * Admin: a non-terminal record gets `failure_code`/`failure_message` and is held where it is
   * (earn-api §3: such a record does not resolve on its own) until `resolveManualReview`.
   */
  holdWithFailure(operationId: string, failureCode: string, failureMessage?: string): WithdrawalRecord {
    this.advance()
    const w = this.book.byOperation.get(lower(operationId))
    if (!w) throw invalid('withdrawal not found')
    if (w.status === 'claimed' || w.status === 'completed' || w.status === 'cancelled') throw invalid(`withdrawal is already ${w.status}`)
    w.held = true
    w.failureCode = failureCode
    w.failureMessage = failureMessage ?? `${failureCode}; held for manual intervention`
    this.changed()
    return this.record(w)
  }

  /** Admin: settle a payout held in manual review or by a hold (pays it out as the operator would). */
  resolveManualReview(operationId: string): WithdrawalRecord {
    const w = this.book.byOperation.get(lower(operationId))
    if (!w || (w.status !== 'manual_review' && !w.held)) throw invalid('withdrawal is not in manual_review or held')
    w.held = false
    finishPayout(this.book, w, this.now())
    this.changed()
    return this.record(w)
  }

  /** Backdate a scheduled withdrawal's claim time (seeding a claimable one without waiting). */
  makeClaimable(operationId: string): void {
    const w = this.book.byOperation.get(lower(operationId))
    if (!w || w.status !== 'queued') throw invalid('withdrawal is not queued')
    w.claimableAt = this.now()
    this.changed()
  }

  // ------------------------------------------------------------------------------ time

  /** Applies every time-driven move due at `now()`: payout stages, then yield distributions. */
  advance(): void {
    if (applyDueMoves(this.book, this.settings, this.faults, this.now())) this.changed()
  }

  // ------------------------------------------------------------------------------ audit & persistence

  /** Identity violations (empty when every (user, asset) balances). */
  checkIdentity(): string[] {
    return this.book.checkIdentity()
  }

  /** Ground truth for the admin API: every operation the pool executed, newest last. */
  groundTruth() {
    this.advance()
    return {
      withdrawals: this.book.withdrawals.map((w) => ({ ...this.record(w), claim_digest: w.claimDigest })),
      deposits: this.book.deposits.map(depositEntry).map((d, i) => ({ ...d, user_address: this.book.deposits[i]!.user })),
      yields: this.book.yields.length,
      identity_violations: this.checkIdentity(),
      paused: this.paused,
      faults: { ...this.faults },
    }
  }

  snapshot(): EarnSnapshot {
    return this.book.snapshot()
  }

  restore(s: EarnSnapshot): void {
    this.book.restore(s)
  }
}
