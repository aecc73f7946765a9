import * as v from 'valibot'
import { defineInfo } from '../define'
import { decimalStr, noParams, nonNegInt, rowsEnvelope, uint } from '../fields'

export const QuoteAssetSchema = v.looseObject({ asset_id: nonNegInt, min_quantity: decimalStr, min_quantity_atoms: uint })
export type QuoteAsset = v.InferOutput<typeof QuoteAssetSchema>

/** `quoteAssets`: quote allowlist with the minimum order notional, sorted by `asset_id`. */
export const quoteAssets = defineInfo({
  type: 'quoteAssets',
  request: noParams,
  response: rowsEnvelope(['quote_assets', 'quoteAssets', 'assets', 'rows'], QuoteAssetSchema),
})
