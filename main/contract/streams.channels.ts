/** The stream pool's channel. */

import * as v from 'valibot'
import type { StreamStatus } from './streams.types'
import { query } from './common.channel'

export const streamsChannels = {
  /** The stream pool's status now (a new window shows the panel before the next push). */
  'stream.status': query<StreamStatus>()(v.object({})),
} as const
