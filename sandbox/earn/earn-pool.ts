/**
 * The sandbox earn pool: balances, deposits, yield, withdrawals and their status machine.
 *
 * Time-driven moves (payout stages, yield distributions) are applied lazily by `advance()`
 * against the injected clock, so a fake clock drives them deterministically and a restart
 * catches up. Amounts are bigint atoms; the per-asset identity
 *   lifetime_deposit + lifetime_yield − lifetime_withdraw = earn + in_queue + withdraw_locked
 * holds after every operation (checked by `checkIdentity`).
 */
import { keccak256, stringToHex } from 'viem'
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
import { BALANCE_DECIMALS, type EarnAssetSettings, type EarnPoolSettings } from './pool-settings'

/** A refusal the handler turns into `{code, message}`. */
export class EarnReject extends Error {
  constructor(
    readonly code: 131002 | 131004 | 131006 | 201005,
    message: string,
  ) {
    super(message)
  }
}
const invalid = (m: string) => new EarnReject(131004, m)

export interface BucketState {
  earn: bigint
  inQueue: bigint
  locked: bigint
  lifetimeDeposit: bigint
  lifetimeYield: bigint
  lifetimeWithdraw: bigint
  activeOperationId: string
}

export interface WithdrawalState {
  id: number
  operationId: string
  user: string
  userNonce: number
  type: WithdrawType
  assetId: number
  gross: bigint
  fee: bigint
  feeBps: number
  deadline: number
  claimableAt: number | null
  status: WithdrawalStatus
  createdAt: number
  /** when the current payout stage began (drives lazy progression) */
  stageSince: number
  coreTxHash: string | null
  feeCoreTxHash: string | null
  failureCode: string | null
  failureMessage: string | null
  claimedAt: number | null
  cancelledAt: number | null
  completedAt: number | null
  /** digest bound by the first claim attempt that reached the pool, whatever its fate */
  claimDigest: string | null
  /** admin hold: a non-terminal record carrying failure_code that does not move on its own */
  held?: boolean
}

export interface DepositState {
  id: number
  operationId: string
  user: string
  type: 'bridge_deposit' | 'direct_transfer'
  assetId: number
  amount: bigint
  status: 'credited' | 'rejected'
  coreHeight: number
  timestampMs: number
  srcChainId: number | null
  srcTxHash: string | null
  coreTxHash: string | null
}

export interface YieldState {
  id: number
  distributionId: string
  user: string
  assetId: number
  snapshotBalance: bigint
  amount: bigint
  appliedAt: number
}

export interface EarnFaults {
  /** every request answers 131002 (nothing executed) */
  unavailable: boolean
  /** writes answer 131006; `executed` applies the write first (outcome unknown to the caller) */
  timeout: null | 'executed' | 'not-executed'
  /** payouts reaching the transfer stage fail into `manual_review` */
  manualReview: boolean
}

export interface DepositInput {
  user: string
  assetId: number
  amount: bigint
  type?: 'bridge_deposit' | 'direct_transfer'
  /** force a rejection (otherwise rejected only when the asset has deposits disabled) */
  reject?: boolean
  srcChainId?: number
  /** where a direct transfer happened on the trading chain (its operation id names it) */
  at?: { height: number; txIndex: number; eventIndex: number }
}

const lower = (a: string) => a.toLowerCase()
const fakeHash = (seed: string) => keccak256(stringToHex(seed))

export class EarnPool {
  readonly settings: EarnPoolSettings
  readonly faults: EarnFaults = { unavailable: false, timeout: null, manualReview: false }
  paused = false
  private readonly now: () => number
  private nextId = 1
  private coreHeight = 1
  private bridgeNonce = 1
  private distributionSeq = 0
  private nextDistributionAt: number
  private readonly buckets = new Map<string, Map<number, BucketState>>()
  private readonly nonces = new Map<string, number>()
  private readonly withdrawals: WithdrawalState[] = []
  private readonly byOperation = new Map<string, WithdrawalState>()
  private readonly deposits: DepositState[] = []
  private readonly yields: YieldState[] = []
  private readonly changeListeners = new Set<() => void>()

  constructor(settings: EarnPoolSettings, now: () => number = Date.now) {
    this.settings = settings
    this.now = now
    this.nextDistributionAt = this.boundaryAfter(now())
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
          out.realtime_tvl_amount = this.tvl(a.asset_id).toString()
        }
        return out
      }),
    }
  }

  private tvl(assetId: number): bigint {
    let sum = 0n
    for (const m of this.buckets.values()) sum += m.get(assetId)?.earn ?? 0n
    return sum
  }

  nextNonce(user: string): number {
    return this.nonces.get(lower(user)) ?? 0
  }

  account(user: string): EarnAccount {
    this.advance()
    const u = lower(user)
    const balances: EarnBalance[] = []
    const m = this.buckets.get(u)
    if (m) {
      for (const [assetId, b] of [...m.entries()].sort((x, y) => x[0] - y[0])) {
        const active = b.activeOperationId ? this.byOperation.get(b.activeOperationId) : undefined
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
      this.deposits.filter((d) => d.user === u && (q.assetId === undefined || d.assetId === q.assetId)),
      q,
      depositEntry,
    )
  }

  yieldPage(user: string, q: PageQuery): EarnPage<YieldEntry> {
    this.advance()
    const u = lower(user)
    return page(
      this.yields.filter((y) => y.user === u && (q.assetId === undefined || y.assetId === q.assetId)),
      q,
      (y) => ({
        id: y.id,
        distribution_id: y.distributionId,
        asset_id: y.assetId,
        snapshot_balance: y.snapshotBalance.toString(),
        yield_amount: y.amount.toString(),
        applied_at_unix_ms: y.appliedAt,
      }),
    )
  }

  withdrawalsPage(user: string, q: PageQuery & { status?: WithdrawalStatus }): EarnPage<WithdrawalRecord> {
    this.advance()
    const u = lower(user)
    return page(
      this.withdrawals.filter(
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
    const w = this.byOperation.get(lower(operationId))
    if (!w || w.user !== lower(user)) throw invalid('withdrawal not found')
    return w
  }

  record(w: WithdrawalState): WithdrawalRecord {
    const r: WithdrawalRecord = {
      id: w.id,
      operation_id: w.operationId,
      user_address: w.user,
      user_nonce: w.userNonce,
      withdraw_type: w.type,
      asset_id: w.assetId,
      gross_amount: w.gross.toString(),
      user_amount: (w.gross - w.fee).toString(),
      fee_amount: w.fee.toString(),
      fee_bps_snapshot: w.feeBps,
      request_deadline_unix_ms: w.deadline,
      claimable_at_unix_ms: w.claimableAt,
      status: w.status,
      created_at_unix_ms: w.createdAt,
      claimed_at_unix_ms: w.claimedAt,
      cancelled_at_unix_ms: w.cancelledAt,
      completed_at_unix_ms: w.completedAt,
    }
    if (w.coreTxHash) r.core_tx_hash = w.coreTxHash
    if (w.feeCoreTxHash) r.fee_core_tx_hash = w.feeCoreTxHash
    if (w.failureCode) {
      r.failure_code = w.failureCode
      r.failure_message = w.failureMessage ?? ''
    }
    return r
  }

  // ------------------------------------------------------------------------------ writes

  /** Validated, signature-checked create. Throws EarnReject with the spec's messages. */
  createWithdrawal(req: { user: string; userNonce: number; type: WithdrawType; assetId: number; gross: bigint; deadline: number }): WithdrawalRecord {
    this.advance()
    const u = lower(req.user)
    const asset = this.asset(req.assetId)
    if (!asset) throw invalid(`unsupported asset_id: ${req.assetId}`)
    if (this.paused) throw invalid('withdrawals are paused')
    const enabled = req.type === 'scheduled' ? asset.scheduled_withdraw_enabled : asset.instant_withdraw_enabled
    if (!enabled) throw invalid('withdrawal type is disabled for asset')
    const expected = this.nextNonce(u)
    if (req.userNonce !== expected) throw invalid(`user_nonce must equal next_user_nonce ${expected}`)
    const b = this.bucket(u, req.assetId)
    if (b.activeOperationId) throw invalid('user asset already has an active withdrawal')
    if (req.gross <= 0n) throw invalid('amount must be greater than 0')
    if (asset.min_withdraw_amount > 0n && req.gross < asset.min_withdraw_amount) throw invalid('withdrawal amount is below minimum')
    if (asset.max_single_withdraw_amount > 0n && req.gross > asset.max_single_withdraw_amount) throw invalid('withdrawal amount exceeds maximum')
    if (req.gross > b.earn) throw invalid('insufficient earn balance')

    const now = this.now()
    const feeBps = req.type === 'instant' ? asset.instant_fee_bps : 0
    const fee = (req.gross * BigInt(feeBps)) / 10_000n
    const operationId = `withdraw:${u}:${req.userNonce}`
    const w: WithdrawalState = {
      id: this.nextId++,
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
    this.nonces.set(u, expected + 1)
    this.withdrawals.push(w)
    this.byOperation.set(operationId, w)
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
    const b = this.bucket(w.user, w.assetId)
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
    const height = input.at?.height ?? this.coreHeight++
    const srcChainId = input.srcChainId ?? 1
    const operationId =
      type === 'bridge_deposit'
        ? `deposit:${srcChainId}:${lower(this.settings.vaultAddress)}:${this.bridgeNonce++}`
        : `direct-transfer:${this.settings.chainId}:${height}:${input.at?.txIndex ?? 0}:${input.at?.eventIndex ?? 0}`
    const status = input.reject || !asset.deposit_enabled ? 'rejected' : 'credited'
    const d: DepositState = {
      id: this.nextId++,
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
    this.deposits.push(d)
    if (status === 'credited') {
      const b = this.bucket(u, input.assetId)
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
    const w = this.byOperation.get(lower(operationId))
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
    const w = this.byOperation.get(lower(operationId))
    if (!w || (w.status !== 'manual_review' && !w.held)) throw invalid('withdrawal is not in manual_review or held')
    w.held = false
    this.finishPayout(w, this.now())
    this.changed()
    return this.record(w)
  }

  /** Backdate a scheduled withdrawal's claim time (seeding a claimable one without waiting). */
  makeClaimable(operationId: string): void {
    const w = this.byOperation.get(lower(operationId))
    if (!w || w.status !== 'queued') throw invalid('withdrawal is not queued')
    w.claimableAt = this.now()
    this.changed()
  }

  // ------------------------------------------------------------------------------ time

  /** Applies every time-driven move due at `now()`: payout stages, then yield distributions. */
  advance(): void {
    const now = this.now()
    let moved = false
    const stage = this.settings.payoutStageMs
    for (const w of this.withdrawals) {
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
          if (this.faults.manualReview) {
            w.status = 'manual_review'
            w.failureCode = 'payout_transfer_failed'
            w.failureMessage = 'payout transfer failed; held for manual review'
          } else this.finishPayout(w, at)
        } else break
        w.stageSince = at
        moved = true
      }
    }
    const period = this.settings.yieldPeriodMs
    if (period > 0 && now >= this.nextDistributionAt) {
      const missed = Math.floor((now - this.nextDistributionAt) / period) + 1
      if (missed > this.settings.maxCatchUpDistributions) this.nextDistributionAt += (missed - this.settings.maxCatchUpDistributions) * period
      while (now >= this.nextDistributionAt) {
        this.distribute(this.nextDistributionAt)
        this.nextDistributionAt += period
      }
      moved = true
    }
    if (moved) this.changed()
  }

  private finishPayout(w: WithdrawalState, at: number): void {
    const b = this.bucket(w.user, w.assetId)
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

  private distribute(at: number): void {
    this.distributionSeq += 1
    const year = 365n * 24n * 3600n * 1000n
    for (const a of this.settings.assets) {
      if (a.apy_bps === null || a.apy_bps <= 0) continue
      const distributionId = fakeHash(`distribution:${this.distributionSeq}:${a.asset_id}`).slice(2, 26)
      for (const [user, m] of this.buckets) {
        const b = m.get(a.asset_id)
        if (!b || b.earn <= 0n) continue
        const amount = (b.earn * BigInt(a.apy_bps) * BigInt(this.settings.yieldPeriodMs)) / (10_000n * year)
        if (amount === 0n) continue
        this.yields.push({ id: this.nextId++, distributionId, user, assetId: a.asset_id, snapshotBalance: b.earn, amount, appliedAt: at })
        b.earn += amount
        b.lifetimeYield += amount
      }
    }
  }

  private boundaryAfter(t: number): number {
    const p = this.settings.yieldPeriodMs
    return p > 0 ? (Math.floor(t / p) + 1) * p : Number.MAX_SAFE_INTEGER
  }

  private bucket(user: string, assetId: number): BucketState {
    let m = this.buckets.get(user)
    if (!m) this.buckets.set(user, (m = new Map()))
    let b = m.get(assetId)
    if (!b) {
      b = { earn: 0n, inQueue: 0n, locked: 0n, lifetimeDeposit: 0n, lifetimeYield: 0n, lifetimeWithdraw: 0n, activeOperationId: '' }
      m.set(assetId, b)
    }
    return b
  }

  // ------------------------------------------------------------------------------ audit & persistence

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

  /** Ground truth for the admin API: every operation the pool executed, newest last. */
  groundTruth() {
    this.advance()
    return {
      withdrawals: this.withdrawals.map((w) => ({ ...this.record(w), claim_digest: w.claimDigest })),
      deposits: this.deposits.map(depositEntry).map((d, i) => ({ ...d, user_address: this.deposits[i]!.user })),
      yields: this.yields.length,
      identity_violations: this.checkIdentity(),
      paused: this.paused,
      faults: { ...this.faults },
    }
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
    const revive = <T>(o: unknown): T => JSON.parse(JSON.stringify(o), (_k, val) => (typeof val === 'string' && /^-?\d+n$/.test(val) ? BigInt(val.slice(0, -1)) : val))
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
    for (const w of s.withdrawals.map((x) => revive<WithdrawalState>(x))) {
      this.withdrawals.push(w)
      this.byOperation.set(w.operationId, w)
    }
    this.deposits.splice(0, this.deposits.length, ...s.deposits.map((x) => revive<DepositState>(x)))
    this.yields.splice(0, this.yields.length, ...s.yields.map((x) => revive<YieldState>(x)))
  }
}

export interface EarnSnapshot {
  version: 1
  nextId: number
  coreHeight: number
  bridgeNonce: number
  distributionSeq: number
  nextDistributionAt: number
  paused: boolean
  nonces: [string, number][]
  buckets: [string, [number, unknown][]][]
  withdrawals: unknown[]
  deposits: unknown[]
  yields: unknown[]
}

export interface PageQuery {
  assetId?: number
  beforeId?: number
  limit: number
}

/** Newest first; `next_before_id` set whenever the page is exactly `limit` long (spec §4). */
function page<S extends { id: number }, T>(rows: S[], q: PageQuery, map: (s: S) => T): EarnPage<T> {
  const out: S[] = []
  for (let i = rows.length - 1; i >= 0 && out.length < q.limit; i--) {
    const r = rows[i]!
    if (q.beforeId !== undefined && r.id >= q.beforeId) continue
    out.push(r)
  }
  const last = out[out.length - 1]
  return { items: out.map(map), next_before_id: out.length === q.limit && last ? last.id : null }
}

function depositEntry(d: DepositState): DepositEntry {
  const e: DepositEntry = {
    id: d.id,
    operation_id: d.operationId,
    deposit_type: d.type,
    asset_id: d.assetId,
    amount: d.amount.toString(),
    status: d.status,
    core_height: d.coreHeight,
    core_event_timestamp_ms: d.timestampMs,
  }
  if (d.type === 'bridge_deposit') {
    e.src_chain_id = d.srcChainId ?? 1
    if (d.srcTxHash) e.src_tx_hash = d.srcTxHash
    if (d.coreTxHash) e.core_tx_hash = d.coreTxHash
  }
  return e
}
