import type { Address } from 'viem'
import { DeskError } from '../../errors/desk-error'
import { formatAmount } from '../../../contract/format'
import { parseDecimal } from '../../money/decimal'
import type { ActivateForAction, TransferAction, WithdrawAction } from '../../wire'
import { checkAddress, fmt, outcomeOf, parsePositiveAmount, requireOwnerKey, resolveAsset, short, type WriteContext, type WriteOutcome } from '../../session/write-context'

/**
 * Owner-key value moves on the trading service: transfers between balance-mode accounts,
 * withdraws (with a business nonce persisted like the envelope nonce) and `activateFor`.
 * Each is checked against the service's rules before the operator is asked to sign.
 */

async function available(ctx: WriteContext, account: string, assetId: number, decimals: number): Promise<bigint> {
  const b = (await ctx.reads.balances(account)).find((x) => x.assetId === assetId)
  return b ? parseDecimal(b.available, decimals) : 0n
}

async function requireBalanceMode(ctx: WriteContext, account: string, role: string): Promise<void> {
  const [st, line] = await Promise.all([ctx.reads.accountExists(account), ctx.reads.creditLine(account)])
  if (!st.found) throw new DeskError('AccountNotFound', `the ${role} ${account} does not exist`, { account })
  if (line.isCredit) throw new DeskError('ActionNotAllowedForSpotCreditAccount', `the ${role} ${account} is a credit account`, { account })
}

export interface TransferRequest {
  from: string
  to: string
  asset: string | number
  amount: string
  cloid?: string
}

export async function transfer(ctx: WriteContext, req: TransferRequest): Promise<{ outcome: WriteOutcome; amountAtoms: string }> {
  const from = checkAddress(req.from, 'from')
  const to = checkAddress(req.to, 'to')
  if (from === to) throw new DeskError('TransferToSelf', 'a transfer needs two different accounts')
  if (/^0x0{40}$/.test(to)) throw new DeskError('InvalidTransfer', 'the zero address cannot receive a transfer')
  const asset = await resolveAsset(ctx.reads, req.asset)
  const amount = parsePositiveAmount(req.amount, asset.decimals)
  await requireBalanceMode(ctx, from, 'sender')
  await requireBalanceMode(ctx, to, 'recipient')
  const avail = await available(ctx, from, asset.assetId, asset.decimals)
  if (amount > avail) throw new DeskError('InsufficientSpotBalance', `${from} has ${formatAmount(avail, asset)} available`, { available: fmt(avail, asset.decimals) })
  requireOwnerKey(ctx, from, 'sender')
  const display = fmt(amount, asset.decimals)
  const action = { type: 'transfer', to, asset_id: String(asset.assetId), amount: amount.toString(), ...(req.cloid ? { cloid: req.cloid } : {}) } as TransferAction
  const r = await ctx.submitter.submit({
    account: from,
    signer: { owner: from, role: 'owner' },
    action,
    summary: `transfer ${display} ${asset.symbol} ${short(from)} -> ${short(to)}`,
    intent: {
      action: 'transfer',
      title: `Transfer ${display} ${asset.symbol}`,
      summary: [`transfer ${display} ${asset.symbol}`, `from ${from}, signed by its owner key`, `to   ${to}`, `available after: ${formatAmount(avail - amount, asset)}`],
      details: { counterparty: { name: '', address: to }, amount: { units: display, symbol: asset.symbol, usd: null }, fees: [] },
    },
  })
  return { outcome: outcomeOf(r), amountAtoms: amount.toString() }
}

export interface WithdrawRequest {
  account: string
  asset: string | number
  amount: string
  dstChainId: number | string
  dstAddress: string
  cloid?: string
}

export async function withdraw(ctx: WriteContext, req: WithdrawRequest): Promise<{ outcome: WriteOutcome; withdrawNonce: string | null; feeAtoms: string }> {
  const account = checkAddress(req.account, 'account')
  const dst = checkAddress(req.dstAddress, 'destination address')
  const chain = String(req.dstChainId)
  if (!/^(0|[1-9][0-9]*)$/.test(chain)) throw new DeskError('InvalidChainId', 'destination chain id must be a decimal integer')
  const asset = await resolveAsset(ctx.reads, req.asset)
  const amount = parsePositiveAmount(req.amount, asset.decimals)
  await requireBalanceMode(ctx, account, 'account')
  if (amount <= asset.withdrawFeeAtoms) {
    throw new DeskError('WithdrawBelowFee', `the amount must exceed the withdraw fee of ${fmt(asset.withdrawFeeAtoms, asset.decimals)} ${asset.symbol}`, { fee: fmt(asset.withdrawFeeAtoms, asset.decimals) })
  }
  const min = (await ctx.reads.withdrawMinimums()).get(`${chain}:${asset.assetId}`)
  if (min === undefined) throw new DeskError('WithdrawTokenUnsupported', `${asset.symbol} cannot be withdrawn to chain ${chain}`, { chain, asset: asset.symbol })
  if (amount < min) throw new DeskError('WithdrawBelowMinimum', `the minimum withdraw to chain ${chain} is ${fmt(min, asset.decimals)} ${asset.symbol}`, { minimum: fmt(min, asset.decimals) })
  const avail = await available(ctx, account, asset.assetId, asset.decimals)
  if (amount > avail) throw new DeskError('InsufficientSpotBalance', `${account} has ${fmt(avail, asset.decimals)} ${asset.symbol} available`, { available: fmt(avail, asset.decimals) })
  requireOwnerKey(ctx, account, 'account')
  const display = fmt(amount, asset.decimals)
  const action = {
    type: 'withdraw',
    asset_id: String(asset.assetId),
    amount: amount.toString(),
    dst_chain_id: chain,
    dst_address: dst,
    withdraw_nonce: '0', // replaced by the submitter with a persisted business nonce
    ...(req.cloid ? { cloid: req.cloid } : {}),
  } as WithdrawAction
  const r = await ctx.submitter.submit({
    account,
    signer: { owner: account, role: 'owner' },
    action,
    allocateWithdrawNonce: true,
    summary: `withdraw ${display} ${asset.symbol} to ${short(dst)} on chain ${chain}`,
    intent: {
      action: 'withdraw',
      title: `Withdraw ${display} ${asset.symbol}`,
      summary: [
        `withdraw ${display} ${asset.symbol} from ${account}, signed by its owner key`,
        `to ${dst} on chain ${chain}`,
        `withdraw fee recorded (not deducted): ${fmt(asset.withdrawFeeAtoms, asset.decimals)} ${asset.symbol}`,
      ],
      details: {
        counterparty: { name: '', address: dst, chainId: String(chain) },
        amount: { units: display, symbol: asset.symbol, usd: null },
        fees: [{ label: 'withdraw fee (recorded, not deducted)', units: fmt(asset.withdrawFeeAtoms, asset.decimals), symbol: asset.symbol, usd: null }],
      },
    },
  })
  return { outcome: outcomeOf(r), withdrawNonce: r.submission.businessNonce, feeAtoms: asset.withdrawFeeAtoms.toString() }
}

/** The protocol's activation fee: exactly 1.0 unit of asset 1 or 2 (8 decimals). */
export const ACTIVATION_FEE_ATOMS = 100_000_000n
export const ACTIVATION_FEE_ASSETS = [1, 2] as const

export async function activateFor(ctx: WriteContext, req: { from: string; target: string; asset: string | number; cloid?: string }): Promise<{ outcome: WriteOutcome }> {
  const from = checkAddress(req.from, 'from') as Address
  const target = checkAddress(req.target, 'target') as Address
  if (/^0x0{40}$/.test(target)) throw new DeskError('InvalidAccountActivation', 'the zero address cannot be activated')
  const asset = await resolveAsset(ctx.reads, req.asset)
  if (!(ACTIVATION_FEE_ASSETS as readonly number[]).includes(asset.assetId)) {
    throw new DeskError('InvalidActivationFeeAsset', `the activation fee is paid in asset 1 or 2, not ${asset.symbol}`)
  }
  await requireBalanceMode(ctx, from, 'paying account')
  if ((await ctx.reads.accountExists(target)).found) throw new DeskError('AccountAlreadyActivated', `${target} already exists`)
  const avail = await available(ctx, from, asset.assetId, asset.decimals)
  if (avail < ACTIVATION_FEE_ATOMS) throw new DeskError('InsufficientSpotBalance', `the activation fee is 1.0 ${asset.symbol}; ${from} has ${fmt(avail, asset.decimals)}`)
  requireOwnerKey(ctx, from, 'paying account')
  const action = { type: 'activateFor', asset_id: String(asset.assetId), target_address: target, ...(req.cloid ? { cloid: req.cloid } : {}) } as ActivateForAction
  const r = await ctx.submitter.submit({
    account: from,
    signer: { owner: from, role: 'owner' },
    action,
    summary: `activate ${short(target)} paying 1.0 ${asset.symbol}`,
    intent: { action: 'activateFor', title: `Activate ${target}`, summary: [`create the account ${target}`, `fee: 1.0 ${asset.symbol} from ${from}`] },
  })
  return { outcome: outcomeOf(r) }
}

export interface TransferPreviewData {
  from: Address
  to: Address
  asset: { assetId: number; symbol: string; decimals: number }
  amount: string
  amountAtoms: bigint
  fromBefore: bigint
  toBefore: bigint
  /** what the service would refuse, predicted from the balances read */
  warnings: string[]
}

/** What a transfer would do to both sides' available balances; signs nothing. */
export async function previewTransfer(ctx: WriteContext, req: TransferRequest): Promise<TransferPreviewData> {
  const from = checkAddress(req.from, 'from')
  const to = checkAddress(req.to, 'to')
  const asset = await resolveAsset(ctx.reads, req.asset)
  const amountAtoms = parsePositiveAmount(req.amount, asset.decimals)
  const [fromBefore, toBefore] = await Promise.all([available(ctx, from, asset.assetId, asset.decimals), available(ctx, to, asset.assetId, asset.decimals)])
  const warnings = fromBefore < amountAtoms ? [`only ${fmt(fromBefore, asset.decimals)} ${asset.symbol} available: the service will refuse with InsufficientSpotBalance.`] : []
  return { from, to, asset: { assetId: asset.assetId, symbol: asset.symbol, decimals: asset.decimals }, amount: fmt(amountAtoms, asset.decimals), amountAtoms, fromBefore, toBefore, warnings }
}
