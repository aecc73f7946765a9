import type { Address, EarnOverviewView } from '../../../contract/types'
import { DeskError } from '../../errors/desk-error'
import type { EventHub } from '../../ipc/events'
import type { HandlerTable } from '../../ipc/dispatch'
import type { PolicyBook } from '../../policy'
import { requireSubmitted, type WritePipeline } from '../../writes'
import { unlockedWriteSide, type WriteAccess } from '../../session'
import { depositView, yieldView } from './earn-history.views'
import { earnCancelWrite, earnClaimWrite, earnOverview, earnRequestWrite, previewCreateWithdrawal, withdrawalView } from './earn.service'
import type { EarnLive } from './earn-live'
import { earnOverviewView, earnWithdrawalView } from './earn.views'

export type EarnChannels =
  'earn.overview' | 'earn.withdrawals' | 'earn.deposits' | 'earn.yield' | 'earn.preview' | 'earn.create' | 'earn.claim' | 'earn.cancel'

export interface EarnDeps extends WriteAccess {
  /** The operator's guardrails: create and claim are refused while writes are halted (writes/guardrails.ts; cancel only reduces exposure). */
  policy: PolicyBook
  pipeline: WritePipeline
  events: EventHub
  now: () => number
  /** The earn pool's live follow-up: an overview the screen asked for is followed while on screen. */
  live?: EarnLive
}

export function earnHandlers(d: EarnDeps): Pick<HandlerTable, EarnChannels> {
  const write = () => unlockedWriteSide(d)
  const overview = async (account: string): Promise<EarnOverviewView> => {
    const w = await write()
    const view = earnOverviewView(await earnOverview(w.earnCtx, account), d.now())
    d.events.emit('state.earn', view)
    d.live?.shown(view)
    return view
  }
  const withdrawal = async (account: string, operationId: string) => {
    const found = (await overview(account)).withdrawals.find((x) => x.operationId === operationId)
    if (!found) throw new DeskError('WithdrawalNotFound', `withdrawal ${operationId} is not listed for ${account}`)
    return found
  }
  const decimals = async () => {
    const config = await (await write()).earn.config('operator')
    return (assetId: number) => config.assets.find((a) => a.asset_id === assetId)?.balance_decimals ?? 8
  }
  const paging = (a: { assetId?: number | undefined; beforeId?: string | undefined; limit?: number | undefined }) => ({
    ...(a.assetId !== undefined ? { assetId: a.assetId } : {}),
    ...(a.beforeId ? { beforeId: a.beforeId } : {}),
    ...(a.limit ? { limit: a.limit } : {}),
  })
  const next = (id: number | string | null) => (id === null ? null : String(id))
  return {
    'earn.overview': ({ account }) => overview(account),
    'earn.withdrawals': async (a) => {
      const w = await write()
      const config = await w.earn.config('operator')
      const page = await w.earn.withdrawalsPage(a.account, paging(a))
      return {
        items: page.items.map((rec) => earnWithdrawalView(withdrawalView(rec, config.assets, d.now(), config.withdrawal_paused))),
        nextBeforeId: next(page.next_before_id),
      }
    },
    'earn.deposits': async (a) => {
      const dec = await decimals()
      const page = await (await write()).earn.depositsPage(a.account, paging(a))
      return { items: page.items.map((x) => depositView(x, dec)), nextBeforeId: next(page.next_before_id) }
    },
    'earn.yield': async (a) => {
      const dec = await decimals()
      const page = await (await write()).earn.yieldPage(a.account, paging(a))
      return { items: page.items.map((x) => yieldView(x, dec)), nextBeforeId: next(page.next_before_id) }
    },
    'earn.preview': async ({ account, assetId, amount, type }) => {
      // The halt first, as the pipeline checks it for the write (writes/guardrails.ts).
      await d.pipeline.refuseIfHalted('earn_request')
      // Signs nothing: checked on the session's reads, locked vault or not.
      const p = await previewCreateWithdrawal((await d.sessions.current()).write().earnCtx, { user: account, asset: assetId, amount, type })
      return {
        user: p.user as Address,
        assetId: p.assetId,
        symbol: p.symbol,
        type: p.type,
        gross: p.gross,
        grossAtoms: p.grossAtoms,
        fee: p.fee,
        feeBps: p.feeBps,
        net: p.net,
        waitSeconds: p.waitSeconds,
      }
    },
    'earn.create': async ({ account, assetId, amount, type, cloid }) => {
      const r = requireSubmitted(
        await d.pipeline.run(earnRequestWrite({ user: account, asset: assetId, amount, type, ...(cloid ? { operationId: cloid } : {}) })),
      )
      return withdrawal(account, r.outcome.cloid)
    },
    'earn.claim': async ({ account, operationId }) => {
      requireSubmitted(await d.pipeline.run(earnClaimWrite({ user: account, operationId })))
      return withdrawal(account, operationId)
    },
    'earn.cancel': async ({ account, operationId }) => {
      requireSubmitted(await d.pipeline.run(earnCancelWrite({ user: account, operationId })))
      return withdrawal(account, operationId)
    },
  }
}
