import * as v from 'valibot'
import { defineInfo } from '../define'
import { noParams, timeMs, uint } from '../fields'

/**
 * `queryStatus`: query-view metadata and the retained recent-height window. The spec names no
 * fields ("every field is null when no view exists yet"); the names below are the sandbox's,
 * all optional, and anything else is kept as sent.
 */
export const queryStatus = defineInfo({
  type: 'queryStatus',
  request: noParams,
  response: v.looseObject({
    query_height: v.nullish(uint),
    query_time_ms: v.nullish(timeMs),
    app_hash: v.nullish(v.string()),
    earliest_retained_height: v.nullish(uint),
    latest_retained_height: v.nullish(uint),
    retained_window_blocks: v.nullish(uint),
  }),
})
