import * as v from 'valibot'
import { defineInfo } from '../define'
import { noParams, uint } from '../fields'

/**
 * `queryStatus`: query-view metadata and the retained recent-height window. The spec names no
 * fields ("every field is null when no view exists yet"); the height bounds the client uses for
 * `userFills` windows are read when present under the names below, everything else is kept.
 */
export const queryStatus = defineInfo({
  type: 'queryStatus',
  request: noParams,
  response: v.looseObject({
    query_height: v.nullish(uint),
    min_height: v.nullish(uint),
    max_height: v.nullish(uint),
    earliest_height: v.nullish(uint),
    latest_height: v.nullish(uint),
    block_time_ms: v.nullish(uint),
  }),
})
