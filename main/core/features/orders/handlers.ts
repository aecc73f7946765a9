import { DeskError } from '../../errors/desk-error'
import type { HandlerTable } from '../../ipc/dispatch'
import type { Journal } from '../../journal'
import { guardOrder, guardWrite, type PolicyBook } from '../../policy'
import { unlockedWriteSide, type WriteAccess } from '../../session'
import { writeOutcomeView } from '../journal'
import { bookTopsFor, previewOrder } from './order-preview'
import { cancelAllInMarket, cancelOrder, checkOrderTicket, emergencyCancelAll, placeOrder } from './orders.service'

export type OrdersChannels = 'orders.place' | 'orders.cancel' | 'orders.cancelAll' | 'orders.cancelEverything' | 'orders.preview'

/**
 * Placing passes the operator's policy (halt, maximum order value, price band) before signing.
 * Cancels are not gated: they only reduce exposure, and a halt must still be able to clear the book.
 */
export function ordersHandlers(d: WriteAccess & { journal: Journal; policy: PolicyBook }): Pick<HandlerTable, OrdersChannels> {
  const ctx = async () => (await unlockedWriteSide(d)).ctx
  return {
    'orders.preview': async (a) => {
      d.vault.requireUnlocked()
      const session = await d.sessions.current()
      const c = session.write().ctx
      return previewOrder(c, { books: bookTopsFor(session), marketData: () => session.market.recent('operator'), now: session.now }, a)
    },
    'orders.place': async (a) => {
      const c = await ctx()
      await guardWrite(d, 'the order') // a halt is the first thing the operator should hear
      const t = { account: a.account, market: a.marketId, side: a.side, orderType: a.orderType, tif: a.tif, price: a.price, quantity: a.quantity }
      const ticket = await checkOrderTicket(c, t)
      // The band's reference comes from the book the ticket reads (shared, at most BOOK_WRITE_MAX_AGE_MS old), not a fresh /info read per order.
      const top = await bookTopsFor(await d.sessions.current()).forWrite(ticket.market.marketId)
      const book = { bid: top.bid?.price ?? null, ask: top.ask?.price ?? null }
      await guardOrder(d, { market: ticket.market, side: a.side, price: a.price, priceAtoms: ticket.priceAtoms, notionalQuoteAtoms: ticket.notionalQuoteAtoms, book }, a.override)
      const r = await placeOrder(c, t)
      return writeOutcomeView(d.journal, r.outcome, r.leaves)
    },
    'orders.cancel': async (a) => {
      const r = await cancelOrder(await ctx(), { account: a.account, market: a.marketId, oid: a.oid })
      return writeOutcomeView(d.journal, r.outcome, r.leaves)
    },
    'orders.cancelAll': async (a) => {
      const r = await cancelAllInMarket(await ctx(), { account: a.account, market: a.marketId })
      return writeOutcomeView(d.journal, r.outcome, r.leaves)
    },
    'orders.cancelEverything': async ({ account }) => {
      const r = await emergencyCancelAll(await ctx(), { account })
      if (r.failures.length > 0 && r.writes.length === 0) {
        const f = r.failures[0]!
        throw new DeskError(f.code, `${f.message} (markets ${r.failures.flatMap((x) => x.markets).join(', ')}); retry to cancel the rest`)
      }
      return r.writes.map((x) => writeOutcomeView(d.journal, x.outcome, x.leaves))
    },
  }
}
