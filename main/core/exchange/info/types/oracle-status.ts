import * as v from 'valibot'
import { defineInfo } from '../define'
import { noParams } from '../fields'

export const ORACLE_REASON_CODES = ['ProviderError', 'MissingRoute', 'StalePrice', 'InvalidPrice'] as const

/** `oracleStatus`: `available`, or `unavailable` with a reason code. Unknown reasons are kept as text. */
export const oracleStatus = defineInfo({
  type: 'oracleStatus',
  request: noParams,
  response: v.looseObject({
    oracle_status: v.looseObject({ status: v.picklist(['available', 'unavailable']), reason_code: v.nullish(v.string()) }),
  }),
})
