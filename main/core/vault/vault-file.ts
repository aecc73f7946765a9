/**
 * The vault file: JSON, mode 0600. Plaintext is limited to addresses, labels and timestamps;
 * every private key is an AES-256-GCM record, and an HMAC over the canonical body (checked at
 * unlock) catches any edit to the plaintext parts.
 *
 * On top of that keyed MAC, an UNKEYED SHA-256 `checksum` over the canonical body and the MAC is
 * checked at every read, before any key derivation. It guards against nothing deliberate (anyone
 * can recompute it); its job is to tell accidental damage (a flipped bit, a bad sector, a partial
 * copy) from a wrong passphrase: without it, damage to the verifier record reads as "wrong
 * passphrase". Files written before the checksum existed open as before and gain one on their
 * next write.
 */
import { createHash } from 'node:crypto'
import * as v from 'valibot'
import { getAddress, type Address } from 'viem'
import { vaultError } from './errors'
import type { SealedRecord } from './record-cipher'
import type { AgentSlot } from './types'

export const VAULT_FORMAT = 'treasury-desk-vault'
export const VAULT_VERSION = 1
export const VAULT_FILE_NAME = 'vault.json'

export interface VaultKdf {
  name: 'scrypt'
  n: number
  r: number
  p: number
  salt: string
}
export interface AgentRecord {
  slot: AgentSlot
  address: Address
  createdAt: string
  key: SealedRecord
}
export interface OwnerRecord {
  address: Address
  label: string
  createdAt: string
  key: SealedRecord | null
  agents: AgentRecord[]
}
export interface RetiredAgentRecord {
  owner: Address
  slot: AgentSlot
  address: Address
  retiredAt: string
}
/** Team mode (identity-key.ts): the operator identity key and team secrets; absent without team mode. */
export interface TeamSection {
  identity: { address: Address; createdAt: string; key: SealedRecord } | null
  secrets: { name: string; value: SealedRecord }[]
}
export interface VaultDoc {
  format: typeof VAULT_FORMAT
  version: typeof VAULT_VERSION
  kdf: VaultKdf
  cipher: 'aes-256-gcm'
  verifier: SealedRecord
  owners: OwnerRecord[]
  retiredAgents: RetiredAgentRecord[]
  team?: TeamSection
  mac: string
}

const hex = (bytes?: number) =>
  v.pipe(v.string(), v.regex(bytes === undefined ? /^([0-9a-f]{2})+$/ : new RegExp(`^[0-9a-f]{${bytes * 2}}$`)))
const AddressSchema = v.pipe(
  v.string(),
  v.regex(/^0x[0-9a-fA-F]{40}$/),
  // valibot runs the whole pipe even after the regex failed, and getAddress throws on bad input.
  v.check((s) => {
    try {
      return getAddress(s) === s
    } catch {
      return false
    }
  }, 'address not checksummed'),
  v.transform((s) => s as Address),
)
const Iso = v.pipe(v.string(), v.isoTimestamp())
const Slot = v.picklist([0, 1, 2, 3] as const)
const Sealed = v.strictObject({ salt: hex(16), nonce: hex(12), ciphertext: hex(), tag: hex(16) })
const Label = v.pipe(v.string(), v.maxLength(64), v.regex(/^[^\p{Cc}]*$/u))
const DocSchema = v.strictObject({
  format: v.literal(VAULT_FORMAT),
  version: v.literal(VAULT_VERSION),
  kdf: v.strictObject({
    name: v.literal('scrypt'),
    n: v.pipe(v.number(), v.integer(), v.minValue(2)),
    r: v.pipe(v.number(), v.integer(), v.minValue(1)),
    p: v.pipe(v.number(), v.integer(), v.minValue(1)),
    salt: hex(32),
  }),
  cipher: v.literal('aes-256-gcm'),
  verifier: Sealed,
  owners: v.array(
    v.strictObject({
      address: AddressSchema,
      label: Label,
      createdAt: Iso,
      key: v.nullable(Sealed),
      agents: v.array(v.strictObject({ slot: Slot, address: AddressSchema, createdAt: Iso, key: Sealed })),
    }),
  ),
  retiredAgents: v.array(v.strictObject({ owner: AddressSchema, slot: Slot, address: AddressSchema, retiredAt: Iso })),
  team: v.optional(
    v.strictObject({
      identity: v.nullable(v.strictObject({ address: AddressSchema, createdAt: Iso, key: Sealed })),
      secrets: v.array(v.strictObject({ name: v.pipe(v.string(), v.regex(/^[A-Za-z]{1,40}$/)), value: Sealed })),
    }),
  ),
  mac: hex(32),
  /** Absent in files written before it existed; always written now. */
  checksum: v.optional(hex(32)),
})

/** Why a vault file reads as damaged; `details.damage` carries it for the hosts. */
export type VaultDamage = 'unreadable' | 'json' | 'shape' | 'checksum' | 'duplicate'

function damaged(path: string, damage: VaultDamage, what: string): never {
  throw vaultError('VaultCorrupt', `the vault file ${path} is damaged (${what})`, { path, damage })
}

/**
 * Parses file text into a document; any damage (truncation, bit flips, wrong shape, checksum
 * mismatch) is `VaultCorrupt` with `details.damage`, raised before anything derives a key.
 */
export function parseVaultText(text: string, path: string): VaultDoc {
  let json: unknown
  try {
    json = JSON.parse(text)
  } catch {
    damaged(path, 'json', 'not valid JSON; truncated?')
  }
  const r = v.safeParse(DocSchema, json)
  if (!r.success) {
    const issue = r.issues[0]
    damaged(path, 'shape', `${issue?.message ?? 'bad shape'} at ${(issue && v.getDotPath(issue)) ?? 'top level'}`)
  }
  const { checksum, ...doc } = r.output as VaultDoc & { checksum?: string }
  if (checksum !== undefined && checksum !== fileChecksum(doc))
    damaged(path, 'checksum', 'checksum mismatch: its content changed after it was written')
  const seen = new Set<string>()
  const identity = doc.team?.identity ? [doc.team.identity.address] : []
  for (const a of [...doc.owners.map((o) => o.address), ...doc.owners.flatMap((o) => o.agents.map((g) => g.address)), ...identity]) {
    if (seen.has(a)) damaged(path, 'duplicate', `${a} is listed twice`)
    seen.add(a)
  }
  for (const o of doc.owners) {
    if (new Set(o.agents.map((g) => g.slot)).size !== o.agents.length)
      damaged(path, 'duplicate', `two keys in one agent slot of ${o.address}`)
  }
  return doc
}

/** Unkeyed SHA-256 over the canonical body and the MAC (see the file comment for why). */
export function fileChecksum(doc: VaultDoc): string {
  return createHash('sha256').update(canonicalBody(doc)).update('\n').update(doc.mac).digest('hex')
}

/** True when the text carries a checksum (files from before it existed do not). */
export function hasChecksum(text: string): boolean {
  try {
    return typeof (JSON.parse(text) as { checksum?: unknown }).checksum === 'string'
  } catch {
    return false
  }
}

const sealedCanon = (s: SealedRecord): SealedRecord => ({ salt: s.salt, nonce: s.nonce, ciphertext: s.ciphertext, tag: s.tag })

/** The body covered by the file MAC: every field but `mac`, in a fixed key order. */
export function canonicalBody(doc: Omit<VaultDoc, 'mac'>): string {
  return JSON.stringify({
    format: doc.format,
    version: doc.version,
    kdf: { name: doc.kdf.name, n: doc.kdf.n, r: doc.kdf.r, p: doc.kdf.p, salt: doc.kdf.salt },
    cipher: doc.cipher,
    verifier: sealedCanon(doc.verifier),
    owners: doc.owners.map((o) => ({
      address: o.address,
      label: o.label,
      createdAt: o.createdAt,
      key: o.key ? sealedCanon(o.key) : null,
      agents: o.agents.map((g) => ({ slot: g.slot, address: g.address, createdAt: g.createdAt, key: sealedCanon(g.key) })),
    })),
    retiredAgents: doc.retiredAgents.map((g) => ({ owner: g.owner, slot: g.slot, address: g.address, retiredAt: g.retiredAt })),
    // Only when present: a vault without team mode keeps the exact body (and MAC) it always had.
    ...(doc.team
      ? {
          team: {
            identity: doc.team.identity
              ? { address: doc.team.identity.address, createdAt: doc.team.identity.createdAt, key: sealedCanon(doc.team.identity.key) }
              : null,
            secrets: doc.team.secrets.map((s) => ({ name: s.name, value: sealedCanon(s.value) })),
          },
        }
      : {}),
  })
}

export function serializeVault(doc: VaultDoc): string {
  const body = JSON.parse(canonicalBody(doc)) as Record<string, unknown>
  return JSON.stringify({ ...body, mac: doc.mac, checksum: fileChecksum(doc) }, null, 2) + '\n'
}

/** Associated data binding a sealed record to what it is. */
export const aad = {
  verifier: () => `${VAULT_FORMAT}/v${VAULT_VERSION}|verifier`,
  owner: (address: Address) => `${VAULT_FORMAT}/v${VAULT_VERSION}|owner|${address.toLowerCase()}`,
  agent: (owner: Address, slot: AgentSlot, address: Address) =>
    `${VAULT_FORMAT}/v${VAULT_VERSION}|agent|${owner.toLowerCase()}|${slot}|${address.toLowerCase()}`,
  identity: (address: Address) => `${VAULT_FORMAT}/v${VAULT_VERSION}|identity|${address.toLowerCase()}`,
  teamSecret: (name: string) => `${VAULT_FORMAT}/v${VAULT_VERSION}|team-secret|${name}`,
}
export const VERIFIER_PLAINTEXT = 'treasury-desk vault verifier v1'
