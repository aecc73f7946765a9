import { DeskError } from '../../errors/desk-error'
import type { HandlerTable } from '../../ipc/dispatch'
import type { Journal } from '../../journal'
import { previewPriceBand, type PolicyBook } from '../../policy'
import { unlockedWriteSide, type WriteAccess } from '../../session'
import type { WritePipeline } from '../../writes'
import { writeOutcomeView } from '../journal'
import { bookTopsFor, previewOrder } from './order-preview'
import { cancelAllInMarket, cancelOrder, checkOrderTicket, emergencyCancelAll, orderWrite } from './orders.service'

export type OrdersChannels =
  'orders.place' | 'orders.check' | 'orders.cancel' | 'orders.cancelAll' | 'orders.cancelEverything' | 'orders.preview'

/**
 * Every order write walks the write pipeline (core/writes): placing passes the operator's policy
 * (halt, maximum order value, price band) before signing; cancels only reduce exposure, so a halt
 * can still clear the book.
 */
export function ordersHandlers(
  d: WriteAccess & { journal: Journal; policy: PolicyBook; pipeline: WritePipeline },
): Pick<HandlerTable, OrdersChannels> {
  const ctx = async () => (await unlockedWriteSide(d)).ctx
  return {
    'orders.preview': async (a) => {
      d.vault.requireUnlocked()
      const session = await d.sessions.current()
      const c = session.write().ctx
      return previewOrder(
        c,
        {
          books: bookTopsFor(session),
          marketData: () => session.market.recent('operator'),
          now: session.now,
          band: (o) => previewPriceBand(d, o),
        },
        a,
      )
    },
    'orders.check': async (a) => {
      // The halt first, as the pipeline checks it for the order (the CLI and an approver's review check with it).
      await d.pipeline.refuseIfHalted('order')
      // Signs nothing: checked on the session's reads, locked vault or not.
      const t = await checkOrderTicket((await d.sessions.current()).write().ctx, {
        account: a.account,
        market: a.marketId,
        side: a.side,
        orderType: a.orderType,
        tif: a.tif,
        price: a.price,
        quantity: a.quantity,
        ...(a.cloid ? { cloid: a.cloid } : {}),
      })
      return {
        action: { ...t.action },
        marketId: String(t.market.marketId),
        priceAtoms: t.priceAtoms,
        quantityAtoms: t.quantityAtoms,
        notionalQuoteAtoms: t.notionalQuoteAtoms,
        warnings: t.warnings,
      }
    },
    'orders.place': async (a) => {
      const t = {
        account: a.account,
        market: a.marketId,
        side: a.side,
        orderType: a.orderType,
        tif: a.tif,
        price: a.price,
        quantity: a.quantity,
        ...(a.cloid ? { cloid: a.cloid } : {}),
      }
      // The band's reference comes from the book the ticket reads (shared, at most BOOK_WRITE_MAX_AGE_MS old), not a fresh /info read per order.
      const tops = bookTopsFor(await d.sessions.current())
      const book = async (marketId: number) => {
        const top = await tops.forWrite(marketId)
        return { bid: top.bid?.price ?? null, ask: top.ask?.price ?? null }
      }
      return d.pipeline.view(await d.pipeline.run(orderWrite(t, { override: a.override, book })))
    },
    'orders.cancel': async (a) =>
      d.pipeline.view(await cancelOrder(d.pipeline.run, { account: a.account, market: a.marketId, oid: a.oid })),
    'orders.cancelAll': async (a) =>
      d.pipeline.view(await cancelAllInMarket(await ctx(), d.pipeline.run, { account: a.account, market: a.marketId })),
    'orders.cancelEverything': async ({ account }) => {
      const r = await emergencyCancelAll(await ctx(), d.pipeline.run, { account })
      if (r.failures.length > 0 && r.writes.length === 0) {
        const f = r.failures[0]!
        throw new DeskError(f.code, `${f.message} (markets ${r.failures.flatMap((x) => x.markets).join(', ')}); retry to cancel the rest`)
      }
      return r.writes.map((x) => writeOutcomeView(d.journal, x.outcome, x.leaves))
    },
  }
}
