/**
 * The sandbox's demo accounts: PUBLIC development keys (derived in the open, see
 * `scenario/dev-keys.ts`), funded by the default scenario with sandbox funds only.
 * This is the one public module the desk and tests read them from; never use these keys
 * for real funds on any chain.
 */
import type { Address, Hex } from 'viem'
import { DEV_OWNERS, DEV_OWNER_LABELS } from './scenario/dev-keys'

export interface DemoAccount {
  index: number
  /** lowercase 0x address */
  address: Address
  /** public development key */
  privateKey: Hex
  label: string
}

/** Owners 0–2 balance-mode, 3 credit with a long and a short, 4 credit near its limit, 5 unfunded. */
export const DEMO_ACCOUNTS: readonly DemoAccount[] = Object.freeze(
  DEV_OWNERS.map((k, i) =>
    Object.freeze({ index: k.index, address: k.address, privateKey: k.privateKey, label: DEV_OWNER_LABELS[i] ?? `Demo ${k.index}` }),
  ),
)
