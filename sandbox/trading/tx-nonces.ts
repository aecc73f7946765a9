/**
 * Replay protection: a nonce is a time in ms within [now − 2 days, now + 1 day], used once per
 * signer; only the newest 100 are remembered, so anything not above the oldest of them is refused.
 */
import type { Address } from 'viem'
import type { ChainState } from './state'

const DAY_MS = 86_400_000n
const NONCE_RETAINED = 100

export function nonceProblem(state: ChainState, authority: Address, nonce: bigint, refMs: number): boolean {
  const ref = BigInt(refMs)
  if (nonce < ref - 2n * DAY_MS || nonce > ref + DAY_MS) return true
  const list = state.nonces.get(authority)
  if (list) {
    if (list.includes(nonce)) return true
    if (list.length >= NONCE_RETAINED && nonce <= list[0]!) return true
  }
  return false
}

export function consumeNonce(state: ChainState, authority: Address, nonce: bigint): void {
  let list = state.nonces.get(authority)
  if (!list) {
    list = []
    state.nonces.set(authority, list)
  }
  let i = list.length
  while (i > 0 && list[i - 1]! > nonce) i--
  list.splice(i, 0, nonce)
  if (list.length > NONCE_RETAINED) list.shift()
}
