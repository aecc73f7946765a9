import type { Journal } from '../../journal'
import type { HandlerTable } from '../../ipc/dispatch'
import type { PolicyBook } from '../../policy'
import { unlockedWriteSide, withDataAge, type WriteAccess } from '../../session'
import type { WritePipeline } from '../../writes'
import { transferPreviewView } from './preview.views'
import { previewRepay, previewSettle, repayWrite, settleWrite } from './settle-repay.service'

export type SettleRepayChannels = 'settle.preview' | 'settle.submit' | 'repay.preview' | 'repay.submit'

export function settleRepayHandlers(
  d: WriteAccess & { journal: Journal; policy: PolicyBook; pipeline: WritePipeline },
): Pick<HandlerTable, SettleRepayChannels> {
  return {
    'settle.preview': async (a) => {
      const w = await unlockedWriteSide(d)
      return withDataAge(
        w,
        transferPreviewView(
          await previewSettle(w.ctx, { from: a.creditAccount, to: a.cashAccount, asset: a.assetId, amount: a.amount }),
          w.network.name,
        ),
      )
    },
    'settle.submit': async (a) =>
      d.pipeline.view(
        await d.pipeline.run(
          settleWrite({
            from: a.creditAccount,
            to: a.cashAccount,
            asset: a.assetId,
            amount: a.amount,
            ...(a.cloid ? { cloid: a.cloid } : {}),
          }),
        ),
      ),
    'repay.preview': async (a) => {
      const w = await unlockedWriteSide(d)
      return withDataAge(
        w,
        transferPreviewView(
          await previewRepay(w.ctx, { from: a.cashAccount, to: a.creditAccount, asset: a.assetId, amount: a.amount }),
          w.network.name,
        ),
      )
    },
    'repay.submit': async (a) =>
      d.pipeline.view(
        await d.pipeline.run(
          repayWrite({
            from: a.cashAccount,
            to: a.creditAccount,
            asset: a.assetId,
            amount: a.amount,
            ...(a.cloid ? { cloid: a.cloid } : {}),
          }),
        ),
      ),
  }
}
