/**
 * What a share release is bound to (custody.ts): the holder's EIP-712 signature over the request
 * digest, the proposal, the recipient, the holder, its index, the expiry and the sealed envelope;
 * the AEAD's associated data; the chain's commitment to the stored shares; a re-split's request id.
 */
import { sha256 } from '@noble/hashes/sha256'
import { bytesToHex, concatBytes, keccak256, stringToHex, type Hex } from 'viem'

/** How long a release may be used after it is made. */
export const RELEASE_TTL_MS = 60_000
/** How long the executing desk waits for releases before it gives up (nothing signed). */
export const DEFAULT_RELEASE_WAIT_MS = 30_000

const releaseTypes = {
  Release: [
    { name: 'request', type: 'bytes32' },
    { name: 'proposal', type: 'bytes32' },
    { name: 'to', type: 'address' },
    { name: 'holder', type: 'address' },
    { name: 'index', type: 'uint8' },
    { name: 'expiresAt', type: 'uint64' },
    { name: 'envelope', type: 'bytes32' },
  ],
} as const

export function releaseTypedData(
  teamId: Hex,
  r: { request: Hex; proposal: Hex; to: string; holder: string; index: number; expiresAt: number; envelope: string },
) {
  return {
    domain: { name: 'TreasuryDeskCustody', version: '1', salt: teamId },
    types: releaseTypes,
    primaryType: 'Release' as const,
    message: {
      request: r.request,
      proposal: r.proposal,
      to: r.to as Hex,
      holder: r.holder as Hex,
      index: r.index,
      expiresAt: BigInt(r.expiresAt),
      envelope: keccak256(stringToHex(r.envelope)),
    },
  }
}

export const releaseAad = (teamId: string, requestId: string, to: string, holder: string, index: number) =>
  new TextEncoder().encode(
    `custody-release|${teamId.toLowerCase()}|${requestId.toLowerCase()}|${to.toLowerCase()}|${holder.toLowerCase()}|#${index}`,
  )

/** sha256 over the sealed shares in holder order: what the chain's custody entry commits to. */
export function sharesDigest(envelopes: readonly string[]): Hex {
  return bytesToHex(sha256(concatBytes(envelopes.map((e) => new TextEncoder().encode(e)))))
}

/** The request id of a re-split: bound to the team, the account, the new version and the sealer. */
export function resplitRequestId(teamId: string, account: string, version: number, sealer: string): Hex {
  return keccak256(stringToHex(`custody-resplit|${teamId.toLowerCase()}|${account.toLowerCase()}|v${version}|${sealer.toLowerCase()}`))
}

export function resplitOf(text: string): { account: string; version: number } | null {
  try {
    const o = JSON.parse(text) as { resplit?: { account?: unknown; version?: unknown } }
    return o.resplit && typeof o.resplit.account === 'string' && typeof o.resplit.version === 'number'
      ? { account: o.resplit.account, version: o.resplit.version }
      : null
  } catch {
    return null
  }
}
