import { formatAmount } from '../../../contract/format'
import { DeskError } from '../../errors/desk-error'
import { parseDecimal } from '../../money/decimal'
import { checkAddress, fmt, parsePositiveAmount, resolveAsset, type WriteContext } from '../../session/write-context'
import type { WithdrawRequest } from './transfers.service'

export interface WithdrawPreviewData {
  account: string
  dst: string
  chain: string
  asset: { assetId: number; symbol: string; decimals: number }
  amount: string
  amountAtoms: bigint
  feeAtoms: bigint
  minimumAtoms: bigint | null
  before: bigint
  /** what the service would refuse, predicted from the live balances and the service's rules */
  warnings: string[]
}

/**
 * What a withdrawal would do to the account's available balance, from live state, with the
 * refusals the service would give predicted as warnings (fee, chain minimum, balance, credit
 * account). Signs nothing; the submit checks every rule again.
 */
export async function previewWithdraw(ctx: WriteContext, req: WithdrawRequest): Promise<WithdrawPreviewData> {
  const account = checkAddress(req.account, 'account')
  const dst = checkAddress(req.dstAddress, 'destination address')
  const chain = String(req.dstChainId)
  if (!/^(0|[1-9][0-9]*)$/.test(chain)) throw new DeskError('InvalidChainId', 'destination chain id must be a decimal integer')
  const asset = await resolveAsset(ctx.reads, req.asset)
  const amountAtoms = parsePositiveAmount(req.amount, asset.decimals)
  const [line, mins, balances] = await Promise.all([
    ctx.reads.creditLine(account),
    ctx.reads.withdrawMinimums(),
    ctx.reads.balances(account),
  ])
  const b = balances.find((x) => x.assetId === asset.assetId)
  const before = b ? parseDecimal(b.available, asset.decimals) : 0n
  const min = mins.get(`${chain}:${asset.assetId}`) ?? null
  const f = (x: bigint) => formatAmount(x, asset)
  const warnings: string[] = []
  if (line.isCredit) warnings.push(`${account} is a credit account: the service will refuse with ActionNotAllowedForSpotCreditAccount.`)
  if (amountAtoms <= asset.withdrawFeeAtoms)
    warnings.push(`the amount must exceed the withdraw fee of ${f(asset.withdrawFeeAtoms)}: the service will refuse with WithdrawBelowFee.`)
  if (min === null)
    warnings.push(`${asset.symbol} cannot be withdrawn to chain ${chain}: the service will refuse with WithdrawTokenUnsupported.`)
  else if (amountAtoms < min)
    warnings.push(`the minimum withdraw to chain ${chain} is ${f(min)}: the service will refuse with WithdrawBelowMinimum.`)
  if (amountAtoms > before) warnings.push(`only ${f(before)} available: the service will refuse with InsufficientSpotBalance.`)
  return {
    account,
    dst,
    chain,
    asset: { assetId: asset.assetId, symbol: asset.symbol, decimals: asset.decimals },
    amount: fmt(amountAtoms, asset.decimals),
    amountAtoms,
    feeAtoms: asset.withdrawFeeAtoms,
    minimumAtoms: min,
    before,
    warnings,
  }
}
