import type { Address, PreviewView } from '../../../contract/types'
import { formatAmount } from '../../../contract/format'
import { DeskError } from '../../errors/desk-error'
import type { Journal } from '../../journal'
import type { HandlerTable } from '../../ipc/dispatch'
import { guardTransfer, guardWithdraw, type PolicyBook } from '../../policy'
import { fmt, unlockedWriteSide, withDataAge, type WriteAccess } from '../../session'
import type { WritePipeline } from '../../writes'
import { activationWrite, previewTransfer, transferWrite, withdrawWrite } from './transfers.service'
import { previewWithdraw } from './withdraw-preview'

export type TransfersChannels = 'transfer.preview' | 'transfer.submit' | 'withdraw.preview' | 'withdraw.submit' | 'activate.submit'

export interface TransfersDeps extends WriteAccess {
  journal: Journal
  /** The operator's guardrails: every write asks it before anything is signed. */
  policy: PolicyBook
  /** Every write walks it: guardrails, the decision step, signing, journal, send. */
  pipeline: WritePipeline
  /** the operator's name for an account ('' when it has none) */
  label(address: string): string
}

export function transfersHandlers(d: TransfersDeps): Pick<HandlerTable, TransfersChannels> {
  const named = (a: string) => (d.label(a) ? `${d.label(a)} (${a})` : a)
  return {
    'transfer.preview': async (a): Promise<PreviewView> => {
      // The halt first, as the pipeline checks it for the write: refused, not a warning beside a preview.
      await d.pipeline.refuseIfHalted('transfer')
      const w = await unlockedWriteSide(d)
      const p = await previewTransfer(w.ctx, { from: a.from, to: a.to, asset: a.assetId, amount: a.amount })
      // The policy's decision is shown beside the preview; the submit asks it again before signing.
      const policy = await guardTransfer(d, w.ctx, { to: a.to, assetId: a.assetId, amount: a.amount }, { preview: true }).then(
        () => [],
        (e: unknown) => (e instanceof DeskError ? [`Refused by policy (${e.code}): ${e.message}`] : []),
      )
      const f = (x: bigint) => fmt(x, p.asset.decimals)
      const sym = p.asset.symbol
      return withDataAge(w, {
        title: `Transfer ${formatAmount(p.amount, p.asset)}`,
        summary: [
          `Network: ${w.network.name}`,
          `From ${named(p.from)}, signed by its owner key`,
          `To ${named(p.to)}`,
          `Amount: ${formatAmount(p.amount, p.asset)}`,
        ],
        action: {
          type: 'transfer',
          to: p.to,
          asset_id: String(p.asset.assetId),
          amount: p.amountAtoms.toString(),
          cloid: '(new, assigned when signed)',
        },
        effects: [
          {
            account: p.from as Address,
            label: `${d.label(p.from) || 'sender'} available`,
            assetSymbol: sym,
            before: f(p.fromBefore),
            after: f(p.fromBefore - p.amountAtoms),
          },
          {
            account: p.to as Address,
            label: `${d.label(p.to) || 'recipient'} available`,
            assetSymbol: sym,
            before: f(p.toBefore),
            after: f(p.toBefore + p.amountAtoms),
          },
        ],
        warnings: [...policy, ...p.warnings.map((x) => `${d.label(p.from) || p.from} has ${x}`)],
      })
    },
    'transfer.submit': async (a) =>
      d.pipeline.view(
        await d.pipeline.run(
          transferWrite({ from: a.from, to: a.to, asset: a.assetId, amount: a.amount, ...(a.cloid ? { cloid: a.cloid } : {}) }),
        ),
      ),
    'withdraw.preview': async (a): Promise<PreviewView> => {
      await d.pipeline.refuseIfHalted('withdraw')
      const w = await unlockedWriteSide(d)
      const p = await previewWithdraw(w.ctx, {
        account: a.account,
        asset: a.assetId,
        amount: a.amount,
        dstChainId: a.dstChainId,
        dstAddress: a.dstAddress,
      })
      const policy = await guardWithdraw(
        d,
        w.ctx,
        { assetId: a.assetId, amount: a.amount, dstAddress: a.dstAddress, dstChainId: a.dstChainId },
        { preview: true },
      ).then(
        () => [],
        (e: unknown) => (e instanceof DeskError ? [`Refused by policy (${e.code}): ${e.message}`] : []),
      )
      const f = (x: bigint) => fmt(x, p.asset.decimals)
      const sym = p.asset.symbol
      return withDataAge(w, {
        title: `Withdraw ${formatAmount(p.amount, p.asset)}`,
        summary: [
          `Network: ${w.network.name}`,
          `From ${named(p.account)}, signed by its owner key`,
          `To ${p.dst} on chain ${p.chain}`,
          `Amount: ${formatAmount(p.amount, p.asset)}`,
          `Withdraw fee (recorded, not deducted): ${formatAmount(p.feeAtoms, p.asset)}`,
          ...(p.minimumAtoms !== null ? [`Minimum to chain ${p.chain}: ${formatAmount(p.minimumAtoms, p.asset)}`] : []),
        ],
        action: {
          type: 'withdraw',
          asset_id: String(p.asset.assetId),
          amount: p.amountAtoms.toString(),
          dst_chain_id: p.chain,
          dst_address: p.dst,
          withdraw_nonce: '(new, assigned when signed)',
          cloid: '(new, assigned when signed)',
        },
        effects: [
          {
            account: p.account as Address,
            label: `${d.label(p.account) || 'account'} available`,
            assetSymbol: sym,
            before: f(p.before),
            after: f(p.before - p.amountAtoms),
          },
        ],
        warnings: [...policy, ...p.warnings.map((x) => `${d.label(p.account) || p.account}: ${x}`)],
      })
    },
    'withdraw.submit': async (a) =>
      d.pipeline.view(
        await d.pipeline.run(
          withdrawWrite({
            account: a.account,
            asset: a.assetId,
            amount: a.amount,
            dstChainId: a.dstChainId,
            dstAddress: a.dstAddress,
            ...(a.cloid ? { cloid: a.cloid } : {}),
          }),
        ),
      ),
    'activate.submit': async (a) =>
      d.pipeline.view(
        await d.pipeline.run(
          activationWrite({ from: a.account, target: a.target, asset: a.feeAssetId, ...(a.cloid ? { cloid: a.cloid } : {}) }),
        ),
      ),
  }
}
