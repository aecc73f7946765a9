/**
 * One entry of the team chain and what its authors sign: EIP-712 typed data
 *   TeamEntry(uint64 seq, bytes32 prev, string kind, bytes32 payloadHash)
 * under the domain {name: "Treasury Desk team", version: "1", salt: teamId}, so an entry of one team
 * never verifies in another. `prev` is the digest of the entry before (zero for genesis): the hash
 * link. The digest is computed here with keccak directly (it is on the hot path of verifying a
 * 10,000-entry chain); a test pins it to viem's hashTypedData.
 */
import { keccak_256 } from '@noble/hashes/sha3'
import { bytesToHex, hexToBytes, type Address, type Hex, type TypedDataDefinition } from 'viem'
import { canonicalJson } from './canonical'
import type { TeamSigner } from './identity'

/** Governance (signed by an admin quorum), then the proposal lifecycle (signed by one operator). */
export const ENTRY_KINDS = ['genesis', 'roster', 'policy', 'proposal', 'approval', 'rejection', 'signed', 'outcome'] as const
export type EntryKind = (typeof ENTRY_KINDS)[number]

export const ZERO_HASH: Hex = `0x${'00'.repeat(32)}`

export interface UnsignedEntry {
  seq: bigint
  prev: Hex
  kind: EntryKind
  /** canonical JSON text (canonical.ts) */
  payload: string
}

export interface EntrySignature {
  /** lower-case address of the identity key */
  signer: Address
  signature: Hex
}

export interface SignedEntry extends UnsignedEntry {
  digest: Hex
  /** sorted by signer, one per signer */
  signatures: EntrySignature[]
}

export const DOMAIN_NAME = 'Treasury Desk team'
export const DOMAIN_VERSION = '1'
export const ENTRY_TYPES = {
  TeamEntry: [
    { name: 'seq', type: 'uint64' },
    { name: 'prev', type: 'bytes32' },
    { name: 'kind', type: 'string' },
    { name: 'payloadHash', type: 'bytes32' },
  ],
} as const

const enc = new TextEncoder()
const k = (b: Uint8Array) => keccak_256(b)
const concat = (...parts: Uint8Array[]) => {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0))
  let o = 0
  for (const p of parts) {
    out.set(p, o)
    o += p.length
  }
  return out
}
const word = (n: bigint) => hexToBytes(`0x${n.toString(16).padStart(64, '0')}`)

const DOMAIN_TYPEHASH = k(enc.encode('EIP712Domain(string name,string version,bytes32 salt)'))
const ENTRY_TYPEHASH = k(enc.encode('TeamEntry(uint64 seq,bytes32 prev,string kind,bytes32 payloadHash)'))
const separators = new Map<string, Uint8Array>()

function domainSeparator(teamId: Hex): Uint8Array {
  let s = separators.get(teamId)
  if (!s) {
    s = k(concat(DOMAIN_TYPEHASH, k(enc.encode(DOMAIN_NAME)), k(enc.encode(DOMAIN_VERSION)), hexToBytes(teamId)))
    separators.set(teamId, s)
  }
  return s
}

export function payloadHashBytes(payload: string): Uint8Array {
  return k(enc.encode(payload))
}

/** The EIP-712 digest the authors sign; also the entry's hash in the chain and in the CSV export. */
export function entryDigest(teamId: Hex, e: UnsignedEntry): Hex {
  if (e.seq < 0n || e.seq >= 2n ** 64n) throw new RangeError('seq out of uint64 range')
  const struct = k(concat(ENTRY_TYPEHASH, word(e.seq), hexToBytes(e.prev), k(enc.encode(e.kind)), payloadHashBytes(e.payload)))
  return bytesToHex(k(concat(new Uint8Array([0x19, 0x01]), domainSeparator(teamId), struct)))
}

/** The same value as typed data, for a wallet or the vault to sign (and to show). */
export function entryTypedData(teamId: Hex, e: UnsignedEntry): TypedDataDefinition {
  return {
    domain: { name: DOMAIN_NAME, version: DOMAIN_VERSION, salt: teamId },
    types: ENTRY_TYPES,
    primaryType: 'TeamEntry',
    message: { seq: e.seq, prev: e.prev, kind: e.kind, payloadHash: bytesToHex(payloadHashBytes(e.payload)) },
  } as TypedDataDefinition
}

export function unsignedEntry(seq: bigint, prev: Hex, kind: EntryKind, payload: unknown): UnsignedEntry {
  return { seq, prev, kind, payload: canonicalJson(payload) }
}

export async function signEntry(signer: TeamSigner, teamId: Hex, e: UnsignedEntry): Promise<EntrySignature> {
  return { signer: signer.address.toLowerCase() as Address, signature: await signer.signTypedData(entryTypedData(teamId, e)) }
}

/** An entry with its digest and its signatures in canonical order (by signer, one each). */
export function sealEntry(teamId: Hex, e: UnsignedEntry, signatures: EntrySignature[]): SignedEntry {
  const bySigner = new Map<string, EntrySignature>()
  for (const s of signatures) bySigner.set(s.signer.toLowerCase(), { signer: s.signer.toLowerCase() as Address, signature: s.signature })
  const sorted = [...bySigner.values()].sort((a, b) => (a.signer < b.signer ? -1 : a.signer > b.signer ? 1 : 0))
  return { ...e, digest: entryDigest(teamId, e), signatures: sorted }
}

/** Signs with every signer given (each an admin of the quorum) and seals. */
export async function signedEntry(teamId: Hex, e: UnsignedEntry, signers: readonly TeamSigner[]): Promise<SignedEntry> {
  return sealEntry(teamId, e, await Promise.all(signers.map((s) => signEntry(s, teamId, e))))
}
