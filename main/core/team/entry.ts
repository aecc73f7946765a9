/**
 * One entry of the team chain and what its authors sign: EIP-712 typed data
 *   TeamEntry(uint64 seq, bytes32 prev, string kind, bytes32 payloadHash)
 * under the domain {name: "Treasury Desk team", version: "1", salt: teamId}, so an entry of one team
 * never verifies in another. `prev` is the digest of the entry before (zero for genesis): the hash
 * link. The digest is computed here with keccak directly (it is on the hot path of verifying a
 * 10,000-entry chain); a test pins it to viem's hashTypedData.
 *
 * keccak: hash-wasm's WebAssembly keccak once it is instantiated (`keccakReady`, started on import;
 * ~15x faster than @noble/hashes' JavaScript here, which made the digests ~0.8 s of a 10,000-entry
 * verification), noble's until then or if WebAssembly is unavailable. Same function, same bytes.
 */
import { keccak_256 } from '@noble/hashes/sha3'
import { createKeccak, type IHasher } from 'hash-wasm'
import { bytesToHex, hashTypedData, hexToBytes, type Address, type Hex, type TypedDataDefinition } from 'viem'
import { canonicalJson } from './canonical'
import type { TeamSigner } from './identity'

/** Governance (signed by an admin quorum), then the proposal lifecycle (signed by one operator). */
export const ENTRY_KINDS = ['genesis', 'roster', 'policy', 'proposal', 'approval', 'rejection', 'signed', 'outcome', 'custody'] as const
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
let wasmKeccak: IHasher | null = null
/** Resolves when the WebAssembly keccak is in use (or could not be, and noble's stays). */
export const keccakReady: Promise<void> = createKeccak(256).then(
  (h) => {
    wasmKeccak = h
  },
  () => undefined,
)
/** keccak-256; synchronous (the hasher is reset for each call, and JavaScript runs one at a time). */
function k(b: Uint8Array): Uint8Array {
  const h = wasmKeccak
  if (!h) return keccak_256(b)
  h.init()
  h.update(b)
  return h.digest('binary')
}

const DOMAIN_TYPEHASH = k(enc.encode('EIP712Domain(string name,string version,bytes32 salt)'))
const ENTRY_TYPEHASH = k(enc.encode('TeamEntry(uint64 seq,bytes32 prev,string kind,bytes32 payloadHash)'))
const NAME_HASH = k(enc.encode(DOMAIN_NAME))
const VERSION_HASH = k(enc.encode(DOMAIN_VERSION))
/** keccak of each kind's string: the struct's `kind` member, constant per kind. */
const kindHashes = new Map<string, Uint8Array>(ENTRY_KINDS.map((kind) => [kind, k(enc.encode(kind))]))
const separators = new Map<string, Uint8Array>()
const HEX32 = /^0x[0-9a-fA-F]{64}$/

/** Writes the 32 bytes of a checked 0x-hex word at `at` (Buffer's native hex decoding). */
function putHex32(out: Uint8Array, at: number, hex: string): void {
  Buffer.from(out.buffer, out.byteOffset, out.length).write(hex.slice(2), at, 32, 'hex')
}

const HEX_BYTE = Array.from({ length: 256 }, (_, i) => i.toString(16).padStart(2, '0'))
function hex32(b: Uint8Array): Hex {
  let s = '0x'
  for (let i = 0; i < 32; i++) s += HEX_BYTE[b[i]!]
  return s as Hex
}

function domainSeparator(teamId: Hex): Uint8Array {
  let s = separators.get(teamId)
  if (!s) {
    if (!HEX32.test(teamId)) throw new RangeError('team id is not a 32-byte hex word')
    const buf = new Uint8Array(128)
    buf.set(DOMAIN_TYPEHASH, 0)
    buf.set(NAME_HASH, 32)
    buf.set(VERSION_HASH, 64)
    buf.set(hexToBytes(teamId), 96)
    s = k(buf)
    separators.set(teamId, s)
  }
  return s
}

export function payloadHashBytes(payload: string): Uint8Array {
  return k(enc.encode(payload))
}

// The struct and the final message are encoded into two buffers reused across calls (the
// function is synchronous): typehash | seq | prev | keccak(kind) | keccak(payload), then
// 0x1901 | domain separator | struct hash. Only the typehash is constant at a fixed place.
const structBuf = new Uint8Array(160)
structBuf.set(ENTRY_TYPEHASH, 0)
const structView = new DataView(structBuf.buffer)
const outerBuf = new Uint8Array(66)
outerBuf[0] = 0x19
outerBuf[1] = 0x01

/** The EIP-712 digest the authors sign; also the entry's hash in the chain and in the CSV export. */
export function entryDigest(teamId: Hex, e: UnsignedEntry): Hex {
  if (e.seq < 0n || e.seq >= 2n ** 64n) throw new RangeError('seq out of uint64 range')
  if (!HEX32.test(e.prev)) throw new RangeError('prev is not a 32-byte hex word')
  structBuf.fill(0, 32, 56)
  structView.setBigUint64(56, e.seq)
  putHex32(structBuf, 64, e.prev)
  structBuf.set(kindHashes.get(e.kind) ?? k(enc.encode(e.kind)), 96)
  structBuf.set(payloadHashBytes(e.payload), 128)
  outerBuf.set(domainSeparator(teamId), 2)
  outerBuf.set(k(structBuf), 34)
  return hex32(k(outerBuf))
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

/**
 * A roster or policy change whose payload names its `basis` (the digest of the last genesis, roster
 * or policy entry it builds on) is signed as the change itself, not as a chain position:
 *   TeamChange(string kind, bytes32 payloadHash)
 * in the same domain. Admins of a quorum sign it on their own desks, over minutes or days, while
 * proposals keep appending entries; the basis makes it apply once, on exactly that roster and
 * policy (after it applies, the basis is stale). Without a basis, a change is signed as its entry
 * (TeamEntry above), by every admin at once.
 */
export const CHANGE_TYPES = {
  TeamChange: [
    { name: 'kind', type: 'string' },
    { name: 'payloadHash', type: 'bytes32' },
  ],
} as const

/** A roster or policy entry whose payload carries a basis: its signatures are over changeDigest. */
export function signsAsChange(e: { kind: string; payload: string }): boolean {
  return (e.kind === 'roster' || e.kind === 'policy' || e.kind === 'custody') && /^\{"basis":"0x[0-9a-f]{64}"/.test(e.payload)
}

export function changeTypedData(teamId: Hex, e: { kind: string; payload: string }): TypedDataDefinition {
  return {
    domain: { name: DOMAIN_NAME, version: DOMAIN_VERSION, salt: teamId },
    types: CHANGE_TYPES,
    primaryType: 'TeamChange',
    message: { kind: e.kind, payloadHash: bytesToHex(payloadHashBytes(e.payload)) },
  } as TypedDataDefinition
}

/** What a change's admins sign (and its id while its signatures are being collected). */
export function changeDigest(teamId: Hex, e: { kind: string; payload: string }): Hex {
  return hashTypedData(changeTypedData(teamId, e) as Parameters<typeof hashTypedData>[0])
}

export function unsignedEntry(seq: bigint, prev: Hex, kind: EntryKind, payload: unknown): UnsignedEntry {
  return { seq, prev, kind, payload: canonicalJson(payload) }
}

export async function signEntry(signer: TeamSigner, teamId: Hex, e: UnsignedEntry): Promise<EntrySignature> {
  const td = signsAsChange(e) ? changeTypedData(teamId, e) : entryTypedData(teamId, e)
  return { signer: signer.address.toLowerCase() as Address, signature: await signer.signTypedData(td) }
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
