/** The orders feature's channels. */

import * as v from 'valibot'
import type { WriteOutcome } from './journal.types'
import type { OrderCheckView, OrderPreviewView } from './orders.types'
import { intent, query } from './common.channel'
import { address, cloid, decimal, idString } from './common.schemas'

const orderArgs = v.object({
  account: address,
  marketId: idString,
  side: v.picklist(['bid', 'ask'] as const),
  orderType: v.picklist(['limit', 'market'] as const),
  tif: v.picklist(['gtc', 'ioc', 'fok', 'alo'] as const),
  price: decimal,
  quantity: decimal,
  /** Knowing override of the price band for this one order: `confirmText` must equal the phrase the refusal gave. */
  override: v.optional(v.object({ priceBand: v.literal(true), confirmText: v.pipe(v.string(), v.maxLength(200)) })),
  cloid: v.optional(cloid),
})

export const ordersChannels = {
  'orders.place': intent<WriteOutcome>()(orderArgs),
  /** The ticket checked with the market's precision and minimums and the credit gate: the exact action; signs nothing. */
  'orders.check': query<OrderCheckView>()(v.omit(orderArgs, ['override'])),
  'orders.cancel': intent<WriteOutcome>()(v.object({ account: address, marketId: idString, oid: idString })),
  'orders.cancelAll': intent<WriteOutcome>()(v.object({ account: address, marketId: idString })),
  'orders.cancelEverything': intent<WriteOutcome[]>()(v.object({ account: address })),
  /** The ticket's live facts: best bid/offer, tick, minimums, order value, signer, data age (StaleData past the limit). */
  'orders.preview': query<OrderPreviewView>()(
    v.object({
      account: address,
      marketId: idString,
      side: v.picklist(['bid', 'ask'] as const),
      price: v.optional(v.pipe(v.string(), v.maxLength(80))),
      quantity: v.optional(v.pipe(v.string(), v.maxLength(80))),
    }),
  ),
} as const
