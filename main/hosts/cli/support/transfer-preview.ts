/** A settle or repay preview as the desk prints it (lines, and the JSON it has always printed), from the app's preview view. */
import { atomsToDecimal } from '../../../contract/format'
import type { AssetView, PreviewView } from '../../../contract/types'
import type { AccountNamer } from './display'
import { amount } from './display'

export interface TransferPreview {
  kind: 'settle' | 'repay'
  from: string
  to: string
  asset: { assetId: number; symbol: string; decimals: number }
  amount: string
  amountAtoms: string
  creditPosition: { account: string; before: string; after: string }
  cashAvailable: { account: string; before: string; after: string }
  notes: string[]
  dataAgeMs?: number | null
}

/** The app's view (effects: the credit position first, then the cash account's available) in the desk's words. */
export function transferPreviewData(kind: 'settle' | 'repay', v: PreviewView, asset: AssetView): TransferPreview {
  const side = (label: string) => {
    const e = v.effects.find((x) => x.label === label)
    return { account: e?.account.toLowerCase() ?? '', before: e?.before ?? '', after: e?.after ?? '' }
  }
  const creditPosition = side('credit position')
  const cashAvailable = side('available')
  const atoms = String(v.action.amount ?? '0')
  return {
    kind,
    from: kind === 'settle' ? creditPosition.account : cashAvailable.account,
    to: kind === 'settle' ? cashAvailable.account : creditPosition.account,
    asset: { assetId: asset.assetId, symbol: asset.symbol, decimals: asset.balanceDecimals },
    amount: atomsToDecimal(BigInt(atoms), asset.balanceDecimals),
    amountAtoms: atoms,
    creditPosition,
    cashAvailable,
    notes: v.warnings,
    ...(v.dataAgeMs !== undefined ? { dataAgeMs: v.dataAgeMs } : {}),
  }
}

export function transferPreviewLines(p: TransferPreview, name: AccountNamer): string[] {
  const sym = p.asset.symbol
  return [
    `${p.kind} ${amount(p.amount, sym)}`,
    `from ${name(p.from)}`,
    `to   ${name(p.to)}`,
    `credit position ${name(p.creditPosition.account)}: ${amount(p.creditPosition.before, sym)} -> ${amount(p.creditPosition.after, sym)}`,
    `available ${name(p.cashAvailable.account)}: ${amount(p.cashAvailable.before, sym)} -> ${amount(p.cashAvailable.after, sym)}`,
    ...p.notes,
  ]
}
