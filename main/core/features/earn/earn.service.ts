import type { Address } from 'viem'
import { formatAmount } from '../../../contract/format'
import { DeskError } from '../../errors/desk-error'
import type { EarnAsset, WithdrawalRecord, WithdrawType } from '../../wire/earn'
import { formatAtoms, parseDecimal } from '../../money/decimal'
import { checkAddress, short, type EarnServiceContext } from '../../session/write-context'
import type { WriteSpec } from '../../writes'

/**
 * Earn for the operator: balances and lifetime figures per asset, the withdrawals queue with
 * claimable times, create (scheduled or instant, fee shown), claim, cancel, the paused state,
 * and `manual_review` (or a failure code on a live record) flagged as needing attention.
 */

export interface EarnAssetView {
  assetId: number
  symbol: string
  decimals: number
  earnBalance: string
  inQueue: string
  withdrawLocked: string
  lifetimeDeposit: string
  lifetimeYield: string
  lifetimeWithdraw: string
  activeOperationId: string | null
  scheduledEnabled: boolean
  instantEnabled: boolean
  instantFeeBps: number
  pendingSeconds: number
  /** Gross bounds per withdrawal (display); `0` means unbounded. */
  minWithdraw: string
  maxWithdraw: string
  projectedApy: string | null
}

export interface WithdrawalView {
  operationId: string
  assetId: number
  symbol: string
  type: WithdrawType
  status: string
  gross: string
  fee: string
  net: string
  createdAt: number
  claimableAt: number | null
  /** ms until claimable (0 when claimable now), null for instant */
  claimableInMs: number | null
  claimable: boolean
  cancelable: boolean
  needsAttention: boolean
  failure: string | null
}

export interface EarnOverview {
  user: string
  paused: boolean
  /** The `user_nonce` the next create will sign (shared by all assets). */
  nextUserNonce: number
  assets: EarnAssetView[]
  withdrawals: WithdrawalView[]
  /** Withdrawals in manual_review or carrying a failure: they do not resolve on their own. */
  attention: WithdrawalView[]
}

const d = (atoms: string, decimals: number) => formatAtoms(BigInt(atoms), decimals)

/** One withdrawal record as the operator sees it (exact decimals, claim/cancel windows, attention flag). */
export function withdrawalView(w: WithdrawalRecord, assets: EarnAsset[], now: number, paused: boolean): WithdrawalView {
  const a = assets.find((x) => x.asset_id === w.asset_id)
  const dec = a?.balance_decimals ?? 8
  const live = !['claimed', 'completed', 'cancelled'].includes(w.status)
  const claimable =
    w.status === 'queued' && w.claimable_at_unix_ms !== null && now >= w.claimable_at_unix_ms && !paused && w.claimed_at_unix_ms === null
  const cancelable = w.status === 'queued' && w.claimable_at_unix_ms !== null && now < w.claimable_at_unix_ms
  return {
    operationId: w.operation_id,
    assetId: w.asset_id,
    symbol: a?.symbol ?? String(w.asset_id),
    type: w.withdraw_type,
    status: w.status,
    gross: d(w.gross_amount, dec),
    fee: d(w.fee_amount, dec),
    net: d(w.user_amount, dec),
    createdAt: w.created_at_unix_ms,
    claimableAt: w.claimable_at_unix_ms,
    claimableInMs: w.claimable_at_unix_ms === null ? null : Math.max(0, w.claimable_at_unix_ms - now),
    claimable,
    cancelable,
    needsAttention: w.status === 'manual_review' || (live && w.failure_code !== undefined),
    failure: w.failure_code ? `${w.failure_code}${w.failure_message ? `: ${w.failure_message}` : ''}` : null,
  }
}

export async function earnOverview(ctx: EarnServiceContext, user: string): Promise<EarnOverview> {
  const u = checkAddress(user, 'user')
  const [config, account, withdrawals] = await Promise.all([ctx.earn.config(), ctx.earn.account(u), ctx.earn.withdrawals(u)])
  const now = (ctx.now ?? Date.now)()
  const assets: EarnAssetView[] = config.assets.map((a) => {
    const b = account.balances.find((x) => x.asset_id === a.asset_id)
    const z = '0'
    return {
      assetId: a.asset_id,
      symbol: a.symbol,
      decimals: a.balance_decimals,
      earnBalance: d(b?.earn_balance ?? z, a.balance_decimals),
      inQueue: d(b?.in_queue_balance ?? z, a.balance_decimals),
      withdrawLocked: d(b?.withdraw_locked_balance ?? z, a.balance_decimals),
      lifetimeDeposit: d(b?.lifetime_deposit ?? z, a.balance_decimals),
      lifetimeYield: d(b?.lifetime_yield ?? z, a.balance_decimals),
      lifetimeWithdraw: d(b?.lifetime_withdraw ?? z, a.balance_decimals),
      activeOperationId: b && b.active_withdraw_operation_id !== '' ? b.active_withdraw_operation_id : null,
      scheduledEnabled: a.scheduled_withdraw_enabled,
      instantEnabled: a.instant_withdraw_enabled,
      instantFeeBps: a.instant_fee_bps,
      pendingSeconds: a.withdraw_pending_seconds,
      minWithdraw: d(a.min_withdraw_amount, a.balance_decimals),
      maxWithdraw: d(a.max_single_withdraw_amount, a.balance_decimals),
      projectedApy: a.projected_apy ?? null,
    }
  })
  const views = withdrawals
    .map((w) => withdrawalView(w, config.assets, now, config.withdrawal_paused))
    .sort((a, b) => b.createdAt - a.createdAt)
  return {
    user: u,
    paused: config.withdrawal_paused,
    nextUserNonce: account.next_user_nonce,
    assets,
    withdrawals: views,
    attention: views.filter((v) => v.needsAttention),
  }
}

export interface CreateWithdrawalPreview {
  user: string
  assetId: number
  symbol: string
  type: WithdrawType
  gross: string
  grossAtoms: string
  fee: string
  feeBps: number
  net: string
  /** When the scheduled withdrawal becomes claimable (ms from creation), null for instant. */
  waitSeconds: number | null
  /** The account's `next_user_nonce` as read: the create's operation id is `withdraw:<user>:<nonce>`. */
  userNonce: number
}

/** Checks a create against the pool's config and the account, and computes the fee. Signs nothing. */
export async function previewCreateWithdrawal(
  ctx: EarnServiceContext,
  req: { user: string; asset: string | number; amount: string; type: WithdrawType },
): Promise<CreateWithdrawalPreview> {
  const u = checkAddress(req.user, 'user')
  if (req.type !== 'scheduled' && req.type !== 'instant') throw new DeskError('InvalidWithdrawType', 'type must be scheduled or instant')
  const [config, account] = await Promise.all([ctx.earn.config('operator'), ctx.earn.account(u, 'operator')])
  const s = String(req.asset).trim()
  const a = /^[0-9]+$/.test(s)
    ? config.assets.find((x) => x.asset_id === Number(s))
    : config.assets.find((x) => x.symbol.toLowerCase() === s.toLowerCase())
  if (!a) throw new DeskError('UnknownAsset', `the earn pool has no asset "${s}"`)
  if (config.withdrawal_paused)
    throw new DeskError('EarnPaused', 'withdrawals are paused: creating and claiming are blocked (cancelling still works)')
  if (req.type === 'scheduled' ? !a.scheduled_withdraw_enabled : !a.instant_withdraw_enabled)
    throw new DeskError('WithdrawTypeDisabled', `${req.type} withdrawals are disabled for ${a.symbol}`)
  const gross = parseDecimal(req.amount, a.balance_decimals)
  if (gross <= 0n) throw new DeskError('InvalidAmount', 'the amount must be greater than zero')
  const min = BigInt(a.min_withdraw_amount)
  const max = BigInt(a.max_single_withdraw_amount)
  if (min > 0n && gross < min)
    throw new DeskError('WithdrawBelowMinimum', `the minimum is ${formatAtoms(min, a.balance_decimals)} ${a.symbol}`)
  if (max > 0n && gross > max)
    throw new DeskError('WithdrawAboveMaximum', `the maximum is ${formatAtoms(max, a.balance_decimals)} ${a.symbol}`)
  const b = account.balances.find((x) => x.asset_id === a.asset_id)
  if (b && b.active_withdraw_operation_id !== '')
    throw new DeskError('ActiveWithdrawalExists', `${a.symbol} already has an active withdrawal (${b.active_withdraw_operation_id})`)
  const earnBalance = BigInt(b?.earn_balance ?? '0')
  if (gross > earnBalance)
    throw new DeskError('InsufficientEarnBalance', `earn balance is ${formatAtoms(earnBalance, a.balance_decimals)} ${a.symbol}`)
  const feeBps = req.type === 'instant' ? a.instant_fee_bps : 0
  const fee = (gross * BigInt(feeBps)) / 10_000n
  return {
    user: u,
    assetId: a.asset_id,
    symbol: a.symbol,
    type: req.type,
    gross: formatAtoms(gross, a.balance_decimals),
    grossAtoms: gross.toString(),
    fee: formatAtoms(fee, a.balance_decimals),
    feeBps,
    net: formatAtoms(gross - fee, a.balance_decimals),
    waitSeconds: req.type === 'scheduled' ? a.withdraw_pending_seconds : null,
    userNonce: account.next_user_nonce,
  }
}

function requireKey(ctx: EarnServiceContext, u: Address): void {
  if (!ctx.hasOwnerKey(u)) throw new DeskError('OwnerKeyMissing', `${u} has no owner key in the vault`, { owner: u })
}

/** An earn withdrawal request as the write pipeline takes it: checked against the pool's config, signed by the owner key. */
export function earnRequestWrite(req: {
  user: string
  asset: string | number
  amount: string
  type: WithdrawType
  /** The operation id this create must get (an approved proposal run again): refused when the pool's nonce moved. */
  operationId?: string
}): WriteSpec<CreateWithdrawalPreview> {
  return {
    kind: 'earn_request',
    describe: async (w) => {
      const ctx = w.earnCtx
      const p = await previewCreateWithdrawal(ctx, req)
      const u = p.user as Address
      requireKey(ctx, u)
      const key = `withdraw:${u}:${p.userNonce}`
      // Checked before the decision: another operation id is another write (a new proposal), never the approved one.
      if (req.operationId !== undefined && req.operationId.toLowerCase() !== key.toLowerCase())
        throw new DeskError(
          'EarnNonceMoved',
          `this request was approved as ${req.operationId}, but the pool's next user nonce for ${u} is now ${p.userNonce}: it can no longer be sent ` +
            `as approved; nothing was signed. Propose it again.`,
          { expected: req.operationId, next: key },
        )
      const units = { symbol: p.symbol }
      const lines = [
        `${p.type} withdrawal of ${formatAmount(p.gross, units)} from the earn pool`,
        `fee: ${formatAmount(p.fee, units)} (${p.feeBps} bps)`,
        `you receive: ${formatAmount(p.net, units)}`,
      ]
      if (p.waitSeconds !== null) lines.push(`claimable after ${p.waitSeconds} s; cancellable until then`)
      const title = `Withdraw ${formatAmount(p.gross, units)} from earn`
      return {
        account: u,
        title,
        preview: lines,
        feature: p,
        signing: {
          channel: 'earn',
          key,
          action: {
            type: 'createWithdrawal',
            user_address: u,
            user_nonce: p.userNonce,
            withdraw_type: p.type,
            asset_id: p.assetId,
            amount: p.grossAtoms,
          },
          sign: (earn) =>
            earn.createWithdrawal({
              user: u,
              signer: { owner: u, role: 'owner' },
              assetId: p.assetId,
              amount: BigInt(p.grossAtoms),
              type: p.type,
              summary: `earn ${p.type} withdrawal ${formatAmount(p.gross, units)} (${short(u)})`,
              intent: { action: 'earnCreateWithdrawal', title, summary: lines, details: { account: { name: '', address: u } } },
            }),
        },
      }
    },
  }
}

/** A withdrawal's gross amount in its asset's units with its symbol (never atoms). */
function grossOf(w: WithdrawalRecord, assets: EarnAsset[]): string {
  const a = assets.find((x) => x.asset_id === w.asset_id)
  return a
    ? formatAmount(BigInt(w.gross_amount), { symbol: a.symbol, decimals: a.balance_decimals })
    : `${w.gross_amount} (asset ${w.asset_id}: decimals unknown, amount in atoms)`
}

/** Claiming a scheduled withdrawal that has become claimable, as the write pipeline takes it. */
export function earnClaimWrite(req: { user: string; operationId: string }): WriteSpec {
  return {
    kind: 'earn_claim',
    describe: async (w) => {
      const ctx = w.earnCtx
      const u = checkAddress(req.user, 'user') as Address
      requireKey(ctx, u)
      const config = await ctx.earn.config('operator')
      if (config.withdrawal_paused) throw new DeskError('EarnPaused', 'withdrawals are paused: claiming is blocked')
      const wd = await ctx.earn.withdrawal(u, req.operationId, 'operator')
      if (!wd) throw new DeskError('WithdrawalNotFound', `no withdrawal ${req.operationId} for ${u}`)
      const now = (ctx.now ?? Date.now)()
      if (wd.status === 'queued' && wd.claimable_at_unix_ms !== null && now < wd.claimable_at_unix_ms) {
        throw new DeskError('NotClaimableYet', `claimable in ${Math.ceil((wd.claimable_at_unix_ms - now) / 1000)} s`, {
          claimableAt: wd.claimable_at_unix_ms,
        })
      }
      const title = `Claim ${grossOf(wd, config.assets)} from the earn pool`
      const lines = [`claim withdrawal ${req.operationId} of ${short(u)}`, `gross ${grossOf(wd, config.assets)}`]
      return {
        account: u,
        title,
        preview: lines,
        feature: undefined,
        signing: {
          channel: 'earn',
          key: req.operationId,
          action: { type: 'claimWithdrawal', user_address: u, operation_id: req.operationId },
          sign: (earn) =>
            earn.claimWithdrawal({
              user: u,
              signer: { owner: u, role: 'owner' },
              operationId: req.operationId,
              summary: `earn claim ${req.operationId}`,
              intent: { action: 'earnClaimWithdrawal', title, summary: lines, details: { account: { name: '', address: u } } },
            }),
        },
      }
    },
  }
}

/** Cancelling a queued withdrawal (the amount returns to the earn balance), as the write pipeline takes it. */
export function earnCancelWrite(req: { user: string; operationId: string }): WriteSpec {
  return {
    kind: 'earn_cancel',
    describe: async (w) => {
      const u = checkAddress(req.user, 'user') as Address
      requireKey(w.earnCtx, u)
      const title = 'Cancel an earn withdrawal'
      const lines = [`cancel ${req.operationId}; the amount returns to the earn balance`]
      return {
        account: u,
        title,
        preview: lines,
        feature: undefined,
        signing: {
          channel: 'earn',
          key: req.operationId,
          action: { type: 'cancelWithdrawal', user_address: u, operation_id: req.operationId },
          sign: (earn) =>
            earn.cancelWithdrawal({
              user: u,
              signer: { owner: u, role: 'owner' },
              operationId: req.operationId,
              summary: `earn cancel ${req.operationId}`,
              intent: { action: 'earnCancelWithdrawal', title, summary: lines, details: { account: { name: '', address: u } } },
            }),
        },
      }
    },
  }
}
