/** The lines a settle or repay preview shows: what is signed and its predicted effect on both accounts. */
import type { TransferPreview } from '../../../core/features/settle-repay'
import type { AccountNamer } from './display'
import { amount } from './display'

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
