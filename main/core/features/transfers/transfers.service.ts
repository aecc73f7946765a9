import type { Address } from 'viem'
import { DeskError } from '../../errors/desk-error'
import { formatAmount } from '../../../contract/format'
import { parseDecimal } from '../../money/decimal'
import type { ActivateForAction, TransferAction, WithdrawAction } from '../../wire'
import type { SubmitRequest } from '../../exchange/trade/submitter'
import {
  checkAddress,
  fmt,
  parsePositiveAmount,
  requireOwnerKey,
  resolveAsset,
  short,
  type WriteContext,
} from '../../session/write-context'
import type { DescribedWrite, WriteSpec } from '../../writes'

/**
 * Owner-key value moves on the trading service: transfers between balance-mode accounts,
 * withdraws (with a business nonce persisted like the envelope nonce) and `activateFor`.
 * Each is checked against the service's rules before the operator is asked to sign; the write
 * pipeline (core/writes) runs the guardrails, the decision, signing and the send.
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

/** A transfer as the write pipeline takes it: checked against the service's rules, signed by the sender's owner key. */
export function transferWrite(req: TransferRequest): WriteSpec<{ amountAtoms: string }> {
  return {
    kind: 'transfer',
    guard: { transfer: { to: req.to, assetId: req.asset, amount: req.amount } },
    describe: async (w) => {
      const ctx = w.ctx
      const from = checkAddress(req.from, 'from')
      const to = checkAddress(req.to, 'to')
      if (from === to) throw new DeskError('TransferToSelf', 'a transfer needs two different accounts')
      if (/^0x0{40}$/.test(to)) throw new DeskError('InvalidTransfer', 'the zero address cannot receive a transfer')
      const asset = await resolveAsset(ctx.reads, req.asset)
      const amount = parsePositiveAmount(req.amount, asset.decimals)
      await requireBalanceMode(ctx, from, 'sender')
      await requireBalanceMode(ctx, to, 'recipient')
      const avail = await available(ctx, from, asset.assetId, asset.decimals)
      if (amount > avail)
        throw new DeskError('InsufficientSpotBalance', `${from} has ${formatAmount(avail, asset)} available`, {
          available: fmt(avail, asset.decimals),
        })
      requireOwnerKey(ctx, from, 'sender')
      const display = fmt(amount, asset.decimals)
      const action = {
        type: 'transfer',
        to,
        asset_id: String(asset.assetId),
        amount: amount.toString(),
        ...(req.cloid ? { cloid: req.cloid } : {}),
      } as TransferAction
      const shown = formatAmount(amount, asset)
      const title = `Transfer ${shown}`
      const lines = [
        `transfer ${shown}`,
        `from ${from}, signed by its owner key`,
        `to   ${to}`,
        `available after: ${formatAmount(avail - amount, asset, { display: true })}`,
      ]
      return {
        account: from,
        title,
        preview: lines,
        moves: { assetId: asset.assetId, atoms: amount },
        destination: { address: to },
        feature: { amountAtoms: amount.toString() },
        signing: {
          channel: 'trade',
          request: {
            account: from,
            signer: { owner: from, role: 'owner' },
            action,
            summary: `transfer ${shown} ${short(from)} -> ${short(to)}`,
            intent: {
              action: 'transfer',
              title,
              summary: lines,
              details: { counterparty: { name: '', address: to }, amount: { units: display, symbol: asset.symbol, usd: null }, fees: [] },
            },
          },
        },
      }
    },
  }
}

export interface WithdrawRequest {
  account: string
  asset: string | number
  amount: string
  dstChainId: number | string
  dstAddress: string
  cloid?: string
}

/** A withdrawal as the write pipeline takes it: checked against the service's rules, its business nonce allocated at signing. */
export function withdrawWrite(req: WithdrawRequest): WriteSpec<{ feeAtoms: string }> {
  return {
    kind: 'withdraw',
    guard: { withdraw: { assetId: req.asset, amount: req.amount, dstAddress: req.dstAddress, dstChainId: String(req.dstChainId) } },
    describe: (w) => describeWithdraw(w.ctx, req),
  }
}

async function describeWithdraw(ctx: WriteContext, req: WithdrawRequest): Promise<DescribedWrite<{ feeAtoms: string }>> {
  const account = checkAddress(req.account, 'account')
  const dst = checkAddress(req.dstAddress, 'destination address')
  const chain = String(req.dstChainId)
  if (!/^(0|[1-9][0-9]*)$/.test(chain)) throw new DeskError('InvalidChainId', 'destination chain id must be a decimal integer')
  const asset = await resolveAsset(ctx.reads, req.asset)
  const amount = parsePositiveAmount(req.amount, asset.decimals)
  await requireBalanceMode(ctx, account, 'account')
  if (amount <= asset.withdrawFeeAtoms) {
    throw new DeskError(
      'WithdrawBelowFee',
      `the amount must exceed the withdraw fee of ${fmt(asset.withdrawFeeAtoms, asset.decimals)} ${asset.symbol}`,
      { fee: fmt(asset.withdrawFeeAtoms, asset.decimals) },
    )
  }
  const min = (await ctx.reads.withdrawMinimums()).get(`${chain}:${asset.assetId}`)
  if (min === undefined)
    throw new DeskError('WithdrawTokenUnsupported', `${asset.symbol} cannot be withdrawn to chain ${chain}`, { chain, asset: asset.symbol })
  if (amount < min)
    throw new DeskError('WithdrawBelowMinimum', `the minimum withdraw to chain ${chain} is ${fmt(min, asset.decimals)} ${asset.symbol}`, {
      minimum: fmt(min, asset.decimals),
    })
  const avail = await available(ctx, account, asset.assetId, asset.decimals)
  if (amount > avail)
    throw new DeskError('InsufficientSpotBalance', `${account} has ${fmt(avail, asset.decimals)} ${asset.symbol} available`, {
      available: fmt(avail, asset.decimals),
    })
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
  const shown = formatAmount(amount, asset)
  const fee = formatAmount(asset.withdrawFeeAtoms, asset)
  const title = `Withdraw ${shown}`
  const request: SubmitRequest = {
    account,
    signer: { owner: account, role: 'owner' },
    action,
    allocateWithdrawNonce: true,
    summary: `withdraw ${shown} to ${short(dst)} on chain ${chain}`,
    intent: {
      action: 'withdraw',
      title,
      summary: [
        `withdraw ${shown} from ${account}, signed by its owner key`,
        `to ${dst} on chain ${chain}`,
        `withdraw fee recorded (not deducted): ${fee}`,
      ],
      details: {
        counterparty: { name: '', address: dst, chainId: String(chain) },
        amount: { units: display, symbol: asset.symbol, usd: null },
        fees: [
          {
            label: 'withdraw fee (recorded, not deducted)',
            units: fmt(asset.withdrawFeeAtoms, asset.decimals),
            symbol: asset.symbol,
            usd: null,
          },
        ],
      },
    },
  }
  return {
    account,
    title,
    preview: request.intent!.summary,
    moves: { assetId: asset.assetId, atoms: amount },
    destination: { address: dst, chainId: chain },
    feature: { feeAtoms: asset.withdrawFeeAtoms.toString() },
    signing: { channel: 'trade', request },
  }
}

/** The protocol's activation fee: exactly 1.0 unit of asset 1 or 2 (8 decimals). */
export const ACTIVATION_FEE_ATOMS = 100_000_000n
export const ACTIVATION_FEE_ASSETS = [1, 2] as const

/** `activateFor` as the write pipeline takes it: the payer's owner key pays the 1.0 fee to create `target`. */
export function activationWrite(req: { from: string; target: string; asset: string | number; cloid?: string }): WriteSpec {
  return { kind: 'activation', describe: (w) => describeActivation(w.ctx, req) }
}

async function describeActivation(
  ctx: WriteContext,
  req: { from: string; target: string; asset: string | number; cloid?: string },
): Promise<DescribedWrite> {
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
  if (avail < ACTIVATION_FEE_ATOMS)
    throw new DeskError('InsufficientSpotBalance', `the activation fee is 1.0 ${asset.symbol}; ${from} has ${fmt(avail, asset.decimals)}`)
  requireOwnerKey(ctx, from, 'paying account')
  const action = {
    type: 'activateFor',
    asset_id: String(asset.assetId),
    target_address: target,
    ...(req.cloid ? { cloid: req.cloid } : {}),
  } as ActivateForAction
  const title = `Activate ${target}`
  const fee = formatAmount(ACTIVATION_FEE_ATOMS, asset)
  const lines = [`create the account ${target}`, `fee: ${fee} from ${from}`]
  return {
    account: from,
    title,
    preview: lines,
    moves: { assetId: asset.assetId, atoms: ACTIVATION_FEE_ATOMS },
    destination: { address: target },
    feature: undefined,
    signing: {
      channel: 'trade',
      request: {
        account: from,
        signer: { owner: from, role: 'owner' },
        action,
        summary: `activate ${short(target)} paying ${fee}`,
        intent: { action: 'activateFor', title, summary: lines },
      },
    },
  }
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
  const [fromBefore, toBefore] = await Promise.all([
    available(ctx, from, asset.assetId, asset.decimals),
    available(ctx, to, asset.assetId, asset.decimals),
  ])
  const warnings =
    fromBefore < amountAtoms
      ? [`only ${fmt(fromBefore, asset.decimals)} ${asset.symbol} available: the service will refuse with InsufficientSpotBalance.`]
      : []
  return {
    from,
    to,
    asset: { assetId: asset.assetId, symbol: asset.symbol, decimals: asset.decimals },
    amount: fmt(amountAtoms, asset.decimals),
    amountAtoms,
    fromBefore,
    toBefore,
    warnings,
  }
}
