/**
 * Well-known DEVELOPMENT keys of the sandbox scenario. They are derived in the open as
 * keccak256("treasury-desk sandbox <role> <n>") so anyone can recompute them: they are public,
 * they hold sandbox funds only, and must never hold real funds on any chain.
 */
import { keccak256, stringToHex, type Address, type Hex } from 'viem'
import { privateKeyToAccount } from 'viem/accounts'

export type DevRole = 'owner' | 'agent' | 'bot'

export interface DevKey {
  role: DevRole
  index: number
  /** public development key — never use for real funds */
  privateKey: Hex
  /** lowercase 0x address */
  address: Address
}

export function devKey(role: DevRole, index: number): DevKey {
  const privateKey = keccak256(stringToHex(`treasury-desk sandbox ${role} ${index}`))
  return { role, index, privateKey, address: privateKeyToAccount(privateKey).address.toLowerCase() as Address }
}

/** Owners 0–2 are balance-mode accounts, 3 is a credit account with a long and a short, 4 a credit account near its limit, 5 is unfunded. */
export const DEV_OWNERS: readonly DevKey[] = [0, 1, 2, 3, 4, 5].map((i) => devKey('owner', i))
/** API-wallet keys approved into some owners' agent slots by the scenario. */
export const DEV_AGENTS: readonly DevKey[] = [0, 1, 2, 3].map((i) => devKey('agent', i))
/** The market-making bot (bot 0) and the taker that crosses its quotes (bot 1). */
export const DEV_BOTS: readonly DevKey[] = [0, 1].map((i) => devKey('bot', i))

export function devOwner(i: number): DevKey {
  const k = DEV_OWNERS[i]
  if (!k) throw new Error(`no dev owner ${i}`)
  return k
}
export function devAgent(i: number): DevKey {
  const k = DEV_AGENTS[i]
  if (!k) throw new Error(`no dev agent ${i}`)
  return k
}
export function devBot(i: number): DevKey {
  const k = DEV_BOTS[i]
  if (!k) throw new Error(`no dev bot ${i}`)
  return k
}

/** Labels the desk gives the development owners when it imports them (sandbox first run). */
export const DEV_OWNER_LABELS: readonly string[] = [
  'Treasury main',
  'Treasury ops',
  'Payments',
  'Credit desk',
  'Credit (near limit)',
  'Spare (unfunded)',
]
