import * as v from 'valibot'
import { defineInfo } from '../define'
import { decimalStr, nonNegInt, rowsEnvelope, sint, userParams } from '../fields'

/** Same shape as a position in the WebSocket `spotCreditState` channel. */
export const CreditPositionSchema = v.looseObject({
  asset_id: nonNegInt,
  symbol: v.string(),
  actual_display: decimalStr,
  actual_qty: sint,
  pending_exposure_display: decimalStr,
  pending_exposure_qty: sint,
})
export type CreditPosition = v.InferOutput<typeof CreditPositionSchema>

/** `spotCreditPositions`: signed positions per asset; empty for an address without a credit line. */
export const spotCreditPositions = defineInfo({
  type: 'spotCreditPositions',
  request: userParams,
  response: rowsEnvelope(['positions'], CreditPositionSchema),
})
