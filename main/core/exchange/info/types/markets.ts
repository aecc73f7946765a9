import * as v from 'valibot'
import { defineInfo } from '../define'
import { int, noParams, nonNegInt } from '../fields'

export const MarketSchema = v.looseObject({
  market_id: nonNegInt,
  price_decimals: v.pipe(nonNegInt, v.maxValue(36)),
  max_price_sig_figs: nonNegInt,
  base_quantity_decimals: v.pipe(nonNegInt, v.maxValue(36)),
  quote_balance_decimals: v.pipe(nonNegInt, v.maxValue(36)),
  maker_fee_milli_bps: int,
  taker_fee_milli_bps: int,
  fee_setting: v.nullish(v.unknown()),
  credit_trading: v.boolean(),
  credit_trading_setting: v.nullish(v.unknown()),
  base_asset_id: v.optional(nonNegInt),
  quote_asset_id: v.optional(nonNegInt),
  symbol: v.optional(v.string()),
})
export type Market = v.InferOutput<typeof MarketSchema>

/** `markets`: every market with its precision, fees and credit gate, sorted by `market_id`. */
export const markets = defineInfo({ type: 'markets', request: noParams, response: v.looseObject({ markets: v.array(MarketSchema) }) })
