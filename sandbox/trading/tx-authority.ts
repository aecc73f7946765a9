/** Who signed an envelope: the address its signature recovers to, under this or another network's chain id. */
import { keccak256, recoverAddress, recoverTypedDataAddress, type Address } from 'viem'
import { CHAIN_IDS } from '../../main/core/wire/chains'
import { encodeLegacyPayload } from '../../main/core/wire/legacy'
import { normalizeSignature, signingRequest } from '../../main/core/wire/signing'
import { SandboxError } from '../errors'
import type { ParsedEnvelope } from './envelope'
import type { ChainState } from './state'

/** The signer of `p` as if it were signed for chain `cid` (the legacy payload is re-encoded for another chain). */
export async function recoverAuthority(p: ParsedEnvelope, cid: number, chainId: number): Promise<Address> {
  const signature = normalizeSignature(p.envelope.signature!)
  if (p.scheme === 'legacy') {
    const payload =
      cid === chainId
        ? p.payload
        : encodeLegacyPayload({
            action: p.action,
            nonce: p.nonce,
            agentEpoch: p.agentEpoch,
            expiresAfterMs: p.expiresAfterMs,
            chainId: cid,
          })
    return (await recoverAddress({ hash: keccak256(payload), signature })).toLowerCase() as Address
  }
  const req = signingRequest({ action: p.action, nonce: p.nonce, expiresAfterMs: p.expiresAfterMs }, cid)
  if (req.scheme !== 'eip712') throw new SandboxError('Internal', 'scheme mismatch')
  return (
    await recoverTypedDataAddress({ ...req.typedData, signature } as Parameters<typeof recoverTypedDataAddress>[0])
  ).toLowerCase() as Address
}

/** An account or an active agent. */
export function isKnownSigner(state: ChainState, a: Address): boolean {
  return state.accounts.has(a) || state.agentIndex.has(a)
}

/** An unknown signer that recovers to a known one under another network's chain id signed for the wrong chain. */
export async function signedForOtherChain(state: ChainState, p: ParsedEnvelope, chainId: number): Promise<boolean> {
  for (const cid of Object.values(CHAIN_IDS)) {
    if (cid === chainId) continue
    try {
      if (isKnownSigner(state, await recoverAuthority(p, cid, chainId))) return true
    } catch {
      // not recoverable under that chain id either
    }
  }
  return false
}
