import type { Address, PreviewView } from '../../../contract/types'
import { formatAmount } from '../../../contract/format'
import { previewTitle, type TransferPreview } from './settle-repay.service'

export function transferPreviewView(p: TransferPreview, network: string): PreviewView {
  const action =
    p.kind === 'settle'
      ? { type: 'settle', asset_id: String(p.asset.assetId), amount: p.amountAtoms, cash_account: p.to }
      : { type: 'repay', asset_id: String(p.asset.assetId), amount: p.amountAtoms, margin_account: p.to }
  return {
    title: previewTitle(p),
    summary: [
      `network ${network}`,
      `signer ${p.from} (owner key)`,
      `${p.kind} ${formatAmount(p.amount, p.asset)}`,
      `from ${p.from}`,
      `to ${p.to}`,
    ],
    action,
    effects: [
      {
        account: p.creditPosition.account as Address,
        label: 'credit position',
        assetSymbol: p.asset.symbol,
        before: p.creditPosition.before,
        after: p.creditPosition.after,
      },
      {
        account: p.cashAvailable.account as Address,
        label: 'available',
        assetSymbol: p.asset.symbol,
        before: p.cashAvailable.before,
        after: p.cashAvailable.after,
      },
    ],
    warnings: p.notes,
  }
}
