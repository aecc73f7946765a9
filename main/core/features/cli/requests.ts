/** The desk's channel arguments as the services' requests (the services check every field). */
import type { OrderTicket } from '../orders'
import type { OrderType, Side, Tif } from '../../wire'

const opt = <K extends string>(key: K, v: string | undefined) => (v ? ({ [key]: v } as Record<K, string>) : {})

export function orderTicket(a: { account: string; market: string; side: string; quantity: string; price: string; orderType: string; tif: string; cloid?: string | undefined }): OrderTicket {
  // Unknown sides, types and tifs are refused by the service with its typed errors.
  return { account: a.account, market: a.market, side: a.side as Side, quantity: a.quantity, price: a.price, orderType: a.orderType as OrderType, tif: a.tif as Tif, ...opt('cloid', a.cloid) }
}
