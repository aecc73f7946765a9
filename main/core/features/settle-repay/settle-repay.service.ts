import type { Address } from 'viem'
import { DeskError } from '../../errors/desk-error'
import type { SettleAction, RepayAction } from '../../wire'
import { parseDecimal } from '../../money/decimal'
import { formatAmount } from '../../../contract/format'
import type { AssetInfo } from '../../session/account-reads'
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
 * Settle (credit account -> balance-mode cash account, out of a long position) and repay
 * (balance-mode account -> credit account's short). Both are validated against the service's
 * rules before anything is signed, previewed on both accounts, then submitted through the
 * write pipeline (core/writes); an unknown outcome is reconciled by cloid.
 */
export interface SettleRequest {
  /** The credit account (signer, owner key). */
  from: string
  /** The balance-mode cash account that receives the amount. */
  to: string
  /** Asset id or symbol. */
  asset: string | number
  /** Display decimal string, at most the asset's balance decimals. */
  amount: string
  cloid?: string
}

export interface RepayRequest {
  /** The balance-mode account paying (signer, owner key). */
  from: string
  /** The credit account whose short is reduced. */
  to: string
  asset: string | number
  amount: string
  cloid?: string
}

export interface TransferPreview {
  kind: 'settle' | 'repay'
  from: string
  to: string
  asset: { assetId: number; symbol: string; decimals: number }
  amount: string
  amountAtoms: string
  /** The credit account's position in the asset, before and after (signed display decimals). */
  creditPosition: { account: string; before: string; after: string }
  /** The balance-mode account's available balance, before and after. */
  cashAvailable: { account: string; before: string; after: string }
  /** Credit line figures (usd_atoms strings) of the credit account now. */
  credit: { status: string | null; availableUsdAtoms: string | null; lastKnownAvailableUsdAtoms: string | null }
  /** Things the operator should know that do not block the write. */
  notes: string[]
}

function assetView(a: AssetInfo) {
  return { assetId: a.assetId, symbol: a.symbol, decimals: a.decimals }
}

async function availableAtoms(ctx: WriteContext, account: string, a: AssetInfo): Promise<bigint> {
  const b = (await ctx.reads.balances(account)).find((x) => x.assetId === a.assetId)
  return b ? parseDecimal(b.available, a.decimals) : 0n
}

/** Validates a settle against the service's rules and previews it; signs nothing. */
export async function previewSettle(ctx: WriteContext, req: SettleRequest): Promise<TransferPreview> {
  const from = checkAddress(req.from, 'from')
  const to = checkAddress(req.to, 'to')
  if (from === to) throw new DeskError('InvalidSettle', 'the credit account and the cash account must differ')
  const asset = await resolveAsset(ctx.reads, req.asset)
  const amount = parsePositiveAmount(req.amount, asset.decimals)
  const [line, cashLine, cashStatus, positions] = await Promise.all([
    ctx.reads.creditLine(from),
    ctx.reads.creditLine(to),
    ctx.reads.accountExists(to),
    ctx.reads.positions(from),
  ])
  if (!line.isCredit)
    throw new DeskError('InvalidSettle', `${from} is not a credit account: only an active credit account can settle`, { account: from })
  if (line.status !== 'active')
    throw new DeskError('SpotCreditAccountFrozen', `${from} is frozen: a frozen credit account cannot settle`, { account: from })
  if (!cashStatus.found) throw new DeskError('InvalidCashAccount', `the cash account ${to} does not exist`, { account: to })
  if (cashLine.isCredit)
    throw new DeskError('InvalidCashAccount', `${to} is a credit account: settle pays into a balance-mode account`, { account: to })
  const pos = positions.find((p) => p.assetId === asset.assetId)
  const actual = pos?.actualQty ?? 0n
  if (actual <= 0n)
    throw new DeskError('InvalidSettle', `${from} has no settleable long in ${asset.symbol}`, { account: from, asset: asset.symbol })
  if (amount > actual) {
    throw new DeskError('InvalidSettle', `over-settle: the long is ${fmt(actual, asset.decimals)} ${asset.symbol}, asked ${req.amount}`, {
      long: fmt(actual, asset.decimals),
      amount: req.amount,
    })
  }
  const cashBefore = await availableAtoms(ctx, to, asset)
  const notes: string[] = []
  if (line.availableUsdAtoms === null)
    notes.push('marks are stale: the service requires a fresh mark for any asset left with a nonzero net position (OracleMarkPriceMissing)')
  if (amount < actual)
    notes.push('the service checks that available USD stays at or above 0 after the settle (InsufficientSpotCredit otherwise)')
  if (pos && pos.pendingExposureQty !== 0n)
    notes.push(`resting orders hold ${fmt(pos.pendingExposureQty, asset.decimals)} ${asset.symbol} of pending exposure`)
  return {
    kind: 'settle',
    from,
    to,
    asset: assetView(asset),
    amount: fmt(amount, asset.decimals),
    amountAtoms: amount.toString(),
    creditPosition: { account: from, before: fmt(actual, asset.decimals), after: fmt(actual - amount, asset.decimals) },
    cashAvailable: { account: to, before: fmt(cashBefore, asset.decimals), after: fmt(cashBefore + amount, asset.decimals) },
    credit: {
      status: line.status,
      availableUsdAtoms: line.availableUsdAtoms?.toString() ?? null,
      lastKnownAvailableUsdAtoms: line.lastKnownAvailableUsdAtoms?.toString() ?? null,
    },
    notes,
  }
}

/** Validates a repay against the service's rules and previews it; signs nothing. */
export async function previewRepay(ctx: WriteContext, req: RepayRequest): Promise<TransferPreview> {
  const from = checkAddress(req.from, 'from')
  const to = checkAddress(req.to, 'to')
  if (from === to) throw new DeskError('InvalidRepay', 'the paying account and the credit account must differ')
  const asset = await resolveAsset(ctx.reads, req.asset)
  const amount = parsePositiveAmount(req.amount, asset.decimals)
  const [fromLine, fromStatus, line, positions] = await Promise.all([
    ctx.reads.creditLine(from),
    ctx.reads.accountExists(from),
    ctx.reads.creditLine(to),
    ctx.reads.positions(to),
  ])
  if (!fromStatus.found) throw new DeskError('InvalidRepay', `the paying account ${from} does not exist`, { account: from })
  if (fromLine.isCredit)
    throw new DeskError('InvalidRepay', `${from} is a credit account: repay is signed by a balance-mode account`, { account: from })
  if (!line.isCredit) throw new DeskError('InvalidMarginAccount', `${to} is not a credit account`, { account: to })
  const pos = positions.find((p) => p.assetId === asset.assetId)
  const actual = pos?.actualQty ?? 0n
  if (actual >= 0n)
    throw new DeskError('InvalidRepay', `${to} has no short in ${asset.symbol} to repay`, { account: to, asset: asset.symbol })
  if (amount > -actual) {
    throw new DeskError('InvalidRepay', `over-repay: the short is ${fmt(-actual, asset.decimals)} ${asset.symbol}, asked ${req.amount}`, {
      short: fmt(-actual, asset.decimals),
      amount: req.amount,
    })
  }
  const available = await availableAtoms(ctx, from, asset)
  if (amount > available) {
    throw new DeskError(
      'InsufficientSpotBalance',
      `${from} has ${fmt(available, asset.decimals)} ${asset.symbol} available, asked ${req.amount}`,
      { available: fmt(available, asset.decimals) },
    )
  }
  const notes: string[] = []
  if (line.status === 'frozen') notes.push('the credit account is frozen; repay reduces its short but does not unfreeze it')
  return {
    kind: 'repay',
    from,
    to,
    asset: assetView(asset),
    amount: fmt(amount, asset.decimals),
    amountAtoms: amount.toString(),
    creditPosition: { account: to, before: fmt(actual, asset.decimals), after: fmt(actual + amount, asset.decimals) },
    cashAvailable: { account: from, before: fmt(available, asset.decimals), after: fmt(available - amount, asset.decimals) },
    credit: {
      status: line.status,
      availableUsdAtoms: line.availableUsdAtoms?.toString() ?? null,
      lastKnownAvailableUsdAtoms: line.lastKnownAvailableUsdAtoms?.toString() ?? null,
    },
    notes,
  }
}

/**
 * A previewed settle or repay as the write pipeline takes it: signed with the owner key of its
 * `from` account (after the vault's confirmation gate); the two differ only in the action type
 * and counterparty field.
 */
export function describeSettleRepay(
  ctx: WriteContext,
  preview: TransferPreview,
  cloid: string | undefined,
): DescribedWrite<TransferPreview> {
  const from = preview.from as Address
  requireOwnerKey(ctx, from, preview.kind === 'settle' ? 'credit account' : 'paying account')
  const common = { asset_id: String(preview.asset.assetId), amount: preview.amountAtoms, ...(cloid ? { cloid } : {}) }
  const action = (
    preview.kind === 'settle'
      ? { type: 'settle', ...common, cash_account: preview.to }
      : { type: 'repay', ...common, margin_account: preview.to }
  ) as SettleAction | RepayAction
  const title = previewTitle(preview)
  const lines = previewLines(preview)
  return {
    account: from,
    title,
    preview: lines,
    moves: { assetId: preview.asset.assetId, atoms: BigInt(preview.amountAtoms) },
    feature: preview,
    signing: {
      channel: 'trade',
      request: {
        account: from,
        signer: { owner: from, role: 'owner' },
        action,
        summary: `${preview.kind} ${formatAmount(preview.amount, preview.asset)} from ${short(preview.from)} to ${short(preview.to)}`,
        intent: {
          action: preview.kind,
          title,
          summary: lines,
          details: {
            counterparty: { name: '', address: preview.to },
            amount: { units: preview.amount, symbol: preview.asset.symbol, usd: null },
            fees: [],
          },
        },
      },
    },
  }
}

/** Settle as a pipeline write: validated and previewed, then signed by the credit account's owner key. */
export function settleWrite(req: SettleRequest): WriteSpec<TransferPreview> {
  return { kind: 'settle', describe: async (w) => describeSettleRepay(w.ctx, await previewSettle(w.ctx, req), req.cloid) }
}

/** The same for repay, signed by the paying balance-mode account. */
export function repayWrite(req: RepayRequest): WriteSpec<TransferPreview> {
  return { kind: 'repay', describe: async (w) => describeSettleRepay(w.ctx, await previewRepay(w.ctx, req), req.cloid) }
}

/** "Settle 1,250.5 USDC": the amount signed, every digit, in the desk's one format. */
export function previewTitle(p: TransferPreview): string {
  return `${p.kind === 'settle' ? 'Settle' : 'Repay'} ${formatAmount(p.amount, p.asset)}`
}

/**
 * The lines the confirmation gate shows: exactly what is signed and its predicted effect. The
 * amount signed keeps every digit; balances read in the asset's display precision. Addresses are
 * named by the confirmation context (the operator's label and the address, shortened on screen).
 */
export function previewLines(p: TransferPreview): string[] {
  // "2,000 -> 765.5 BTC": both sides in the asset's display precision, the symbol once.
  const move = (before: string, after: string) =>
    `${formatAmount(before, p.asset, { display: true }).slice(0, -p.asset.symbol.length - 1)} -> ${formatAmount(after, p.asset, { display: true })}`
  return [
    `${p.kind} ${formatAmount(p.amount, p.asset)}`,
    `from ${p.from}`,
    `to   ${p.to}`,
    `credit position ${p.creditPosition.account}: ${move(p.creditPosition.before, p.creditPosition.after)}`,
    `available ${p.cashAvailable.account}: ${move(p.cashAvailable.before, p.cashAvailable.after)}`,
    ...p.notes,
  ]
}
