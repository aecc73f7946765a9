import type { ConfirmDetails } from '../../../contract/types'
import type { Journal } from '../../journal'
import type { HandlerTable } from '../../ipc/dispatch'
import { formatAtoms } from '../../money/decimal'
import { valueAtMarks, type PolicyBook } from '../../policy'
import { USD_DECIMALS, unlockedWriteSide, withDataAge, type WriteAccess } from '../../session'
import type { DescribedWrite, WritePipeline, WriteSpec } from '../../writes'
import { transferPreviewView } from './preview.views'
import { previewRepay, previewSettle, repayWrite, settleWrite, type TransferPreview } from './settle-repay.service'

type Deps = WriteAccess & { journal: Journal; policy: PolicyBook; pipeline: WritePipeline }

/**
 * The confirmation shows the amount's USD value when the desk holds a live mark for the asset
 * (the same marks the desk values balances with); without one it says the value is unknown.
 * Text only: nothing signed or checked depends on it.
 */
function priced(d: Deps, spec: WriteSpec<TransferPreview>): WriteSpec<TransferPreview> {
  return {
    ...spec,
    describe: async (w): Promise<DescribedWrite<TransferPreview>> => {
      const x = await spec.describe(w)
      if (x.signing.channel !== 'trade' || !x.moves) return x
      const intent = x.signing.request.intent
      const details = intent?.details as ConfirmDetails | undefined
      if (!intent || !details?.amount || details.amount.usd !== null) return x
      const usd = await valueAtMarks(d, x.moves.assetId, x.moves.atoms)
      if (usd === null) return x
      const amount = { ...details.amount, usd: formatAtoms(usd, USD_DECIMALS) }
      const request = { ...x.signing.request, intent: { ...intent, details: { ...details, amount } } }
      return { ...x, signing: { ...x.signing, request } }
    },
  }
}

export type SettleRepayChannels = 'settle.preview' | 'settle.submit' | 'repay.preview' | 'repay.submit'

export function settleRepayHandlers(d: Deps): Pick<HandlerTable, SettleRepayChannels> {
  return {
    'settle.preview': async (a) => {
      // The halt first, as the pipeline checks it for the write (before the vault and the validation).
      await d.pipeline.refuseIfHalted('settle')
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
          priced(
            d,
            settleWrite({
              from: a.creditAccount,
              to: a.cashAccount,
              asset: a.assetId,
              amount: a.amount,
              ...(a.cloid ? { cloid: a.cloid } : {}),
            }),
          ),
        ),
      ),
    'repay.preview': async (a) => {
      await d.pipeline.refuseIfHalted('repay')
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
          priced(
            d,
            repayWrite({
              from: a.cashAccount,
              to: a.creditAccount,
              asset: a.assetId,
              amount: a.amount,
              ...(a.cloid ? { cloid: a.cloid } : {}),
            }),
          ),
        ),
      ),
  }
}
