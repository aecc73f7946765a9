import type * as v from 'valibot'

/**
 * One /info query type: its `type` string, the schema of its parameters (as the caller gives
 * them) and of its response. `toBody` maps checked parameters to the JSON body fields, so
 * bigint ids are sent as decimal strings and never through a JS number.
 */
export interface InfoDef<TType extends string, TReq extends v.GenericSchema, TRes extends v.GenericSchema> {
  type: TType
  request: TReq
  response: TRes
  toBody?(params: v.InferOutput<TReq>): Record<string, unknown>
}

export type InfoParams<D> = D extends InfoDef<string, infer R, v.GenericSchema> ? v.InferInput<R> : never
export type InfoResult<D> = D extends InfoDef<string, v.GenericSchema, infer S> ? v.InferOutput<S> : never

export function defineInfo<TType extends string, TReq extends v.GenericSchema, TRes extends v.GenericSchema>(
  def: InfoDef<TType, TReq, TRes>,
): InfoDef<TType, TReq, TRes> {
  return def
}
