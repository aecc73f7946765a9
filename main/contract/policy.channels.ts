/** Operator policy: the guardrails main enforces on every write, the address book, halt and resume. */

import * as v from 'valibot'
import type { AgentSlotView } from './agents.types'
import type { AddressBookEntryView, HaltResult, PolicyView } from './policy.types'
import { intent, query } from './common.channel'
import { address, idString, label, none, passphrase } from './common.schemas'

export const policyChannels = {
  // Operator policy: guardrails main enforces on every write (the renderer and CLI only display them).
  'policy.show': query<PolicyView>()(none),
  /** Tightening applies at once; loosening needs the passphrase and applies after the cooling-off. `value` null turns a rule off. */
  'policy.set': intent<PolicyView>()(
    v.object({
      name: v.pipe(v.string(), v.minLength(1), v.maxLength(64), v.regex(/^[a-z][a-z0-9-]*(:[0-9]{1,10})?$/, 'a policy name')),
      value: v.nullable(v.pipe(v.string(), v.maxLength(40))),
      passphrase: v.optional(passphrase),
    }),
  ),
  'addresses.list': query<AddressBookEntryView[]>()(none),
  'addresses.add': intent<AddressBookEntryView>()(
    v.object({ label: v.pipe(label, v.minLength(1)), address, chainId: idString, passphrase }),
  ),
  'addresses.remove': intent<{ removed: string }>()(v.object({ label: v.pipe(label, v.minLength(1)), passphrase })),
  'policy.halt': intent<HaltResult>()(none),
  'policy.resume': intent<PolicyView>()(v.object({ passphrase })),
  /** Emergency: revokes every occupied agent slot of an account (offered beside halt). */
  'agents.revokeAll': intent<AgentSlotView[]>()(v.object({ owner: address })),
} as const
