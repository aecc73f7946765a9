import * as v from 'valibot'
import { defineInfo } from '../define'
import { address, decimalStr, int, noParams, nonNegInt, uint } from '../fields'

export const AssetSchema = v.looseObject({
  asset_id: nonNegInt,
  symbol: v.string(),
  balance_decimals: v.pipe(nonNegInt, v.maxValue(36)),
  withdraw_fee: decimalStr,
  withdraw_fee_atoms: uint,
  issuer: address,
  credit_ltv: v.pipe(int, v.minValue(0), v.maxValue(100)),
  credit_ltv_setting: v.nullish(v.unknown()),
})
export type Asset = v.InferOutput<typeof AssetSchema>

/** `assets`: every listed asset with its decimals, withdraw fee and credit LTV. */
export const assets = defineInfo({
  type: 'assets',
  request: noParams,
  response: v.looseObject({ query_height: v.nullable(uint), app_hash: v.nullable(v.string()), assets: v.array(AssetSchema) }),
})
