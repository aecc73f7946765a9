import type { Journal } from '../../journal'
import type { HandlerTable } from '../../ipc/dispatch'
import { guardWrite, type PolicyBook } from '../../policy'
import { unlockedWriteSide, withDataAge, type WriteAccess } from '../../session'
import { writeOutcomeView } from '../journal'
import { transferPreviewView } from './preview.views'
import { previewRepay, previewSettle, repay, settle } from './settle-repay.service'

export type SettleRepayChannels = 'settle.preview' | 'settle.submit' | 'repay.preview' | 'repay.submit'

export function settleRepayHandlers(d: WriteAccess & { journal: Journal; policy: PolicyBook }): Pick<HandlerTable, SettleRepayChannels> {
  return {
    'settle.preview': async (a) => {
      const w = await unlockedWriteSide(d)
      return withDataAge(w, transferPreviewView(await previewSettle(w.ctx, { from: a.creditAccount, to: a.cashAccount, asset: a.assetId, amount: a.amount }), w.network.name))
    },
    'settle.submit': async (a) => {
      const w = await unlockedWriteSide(d)
      await guardWrite(d, 'the settle')
      const r = await settle(w.ctx, { from: a.creditAccount, to: a.cashAccount, asset: a.assetId, amount: a.amount, ...(a.cloid ? { cloid: a.cloid } : {}) })
      return writeOutcomeView(d.journal, r.outcome)
    },
    'repay.preview': async (a) => {
      const w = await unlockedWriteSide(d)
      return withDataAge(w, transferPreviewView(await previewRepay(w.ctx, { from: a.cashAccount, to: a.creditAccount, asset: a.assetId, amount: a.amount }), w.network.name))
    },
    'repay.submit': async (a) => {
      const w = await unlockedWriteSide(d)
      await guardWrite(d, 'the repay')
      const r = await repay(w.ctx, { from: a.cashAccount, to: a.creditAccount, asset: a.assetId, amount: a.amount, ...(a.cloid ? { cloid: a.cloid } : {}) })
      return writeOutcomeView(d.journal, r.outcome)
    },
  }
}
