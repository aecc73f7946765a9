/** The confirmation gate's channel: the operator's answer to a confirmation request. */

import * as v from 'valibot'
import { intent } from './common.channel'
import { passphrase } from './common.schemas'

export const confirmChannels = {
  'confirm.respond': intent<{ accepted: boolean }>()(
    v.object({ id: v.pipe(v.string(), v.minLength(1), v.maxLength(64)), approved: v.boolean(), passphrase: v.optional(passphrase) }),
  ),
} as const
