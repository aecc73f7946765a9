/** The networks feature's channels. */

import * as v from 'valibot'
import type { NetworkListing, NetworkView } from './networks.types'
import { intent, query } from './common.channel'
import { none, optText, passphrase, text, url } from './common.schemas'

const networkName = v.pipe(
  v.string(),
  v.minLength(1),
  v.maxLength(40),
  v.regex(/^[a-z0-9][a-z0-9-]*$/, 'lowercase letters, digits and dashes'),
)
const rate = v.pipe(v.number(), v.minValue(0.1), v.maxValue(1000))

export const networksChannels = {
  'networks.list': query<{ selected: string; networks: NetworkListing[] }>()(none),
  'networks.select': intent<NetworkView>()(v.object({ name: networkName })),
  'networks.save': intent<NetworkView>()(
    v.object({
      name: networkName,
      kind: v.picklist(['testnet', 'mainnet', 'custom'] as const),
      chainId: v.pipe(v.number(), v.integer(), v.minValue(1), v.maxValue(2 ** 32 - 1)),
      tradingUrl: url,
      wsUrl: url,
      earnUrl: url,
      infoRatePerSec: rate,
      tradeRatePerSec: rate,
      /** The vault passphrase: adding or changing a network is a policy change once a vault exists. */
      passphrase: v.optional(passphrase),
    }),
  ),

  /**
   * Adds a network or changes some of its fields (the others kept; '' clears a URL); the full
   * entry is validated as `networks.save` validates it. Needs the passphrase once a vault exists.
   */
  'networks.update': intent<NetworkListing>()(
    v.object({
      // Checked in main with the typed InvalidNetwork (as the saved entry is).
      name: text(40),
      kind: optText(20),
      network: optText(40),
      chainId: v.optional(v.number()),
      tradingUrl: optText(400),
      wsUrl: optText(400),
      earnUrl: optText(400),
      infoRatePerSec: v.optional(v.number()),
      tradeRatePerSec: v.optional(v.number()),
      /** Strict limits; only the sandbox may turn them off (main refuses it elsewhere with InvalidNetwork). */
      strictLimits: v.optional(v.boolean()),
      passphrase: v.optional(passphrase),
    }),
  ),
  /** Removes a network (its exchange's policy is kept). Needs the passphrase once a vault exists; journaled. */
  'networks.remove': intent<{ removed: string }>()(v.object({ name: text(40), passphrase: v.optional(passphrase) })),
} as const
