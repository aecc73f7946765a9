/**
 * Team mode's secrets in the vault: the operator's identity key (secp256k1, signs team chain
 * entries, never an account key and never usable as one) and the team store password. Both are
 * sealed records like account keys (AES-256-GCM under the vault master key, bound by associated
 * data), in an optional `team` section that vaults without team mode never carry. Nothing here
 * returns the identity key; the password is returned in main only, for the team store connection.
 */
import { bytesToHex, hashTypedData, type Address, type Hex, type TypedDataDefinition } from 'viem'
import { sign } from 'viem/accounts'
import type { DocChange, VaultBody } from './account-edits'
import { vaultError } from './errors'
import { lc, type KeyRing } from './key-ring'
import { addressOfKey, generatePrivateKey } from './private-key'
import { openRecord, sealRecord } from './record-cipher'
import { aad } from './vault-file'

/**
 * Names of team secrets kept in the vault: the store password, and the team this vault is bound to
 * with the highest chain head it verified (features/team/binding.ts): sealed here, so moving a plain
 * file away or copying the vault elsewhere does not unbind it.
 */
export const TEAM_SECRETS = ['teamStorePassword', 'teamBinding'] as const
export type TeamSecretName = (typeof TEAM_SECRETS)[number]

const teamAad = { identity: aad.identity, secret: aad.teamSecret }

const nowIso = (now: () => number) => new Date(now()).toISOString()
const teamOf = (doc: VaultBody) => doc.team ?? { identity: null, secrets: [] }

/** Creates the identity key; refuses a second one (replacing it would silently leave the team). */
export function putIdentityKey(doc: VaultBody, master: Buffer, now: () => number): DocChange<Address> {
  const team = teamOf(doc)
  if (team.identity) throw vaultError('IdentityKeyExists', `this vault already holds the operator identity key ${team.identity.address}`)
  const key = generatePrivateKey()
  const address = addressOfKey(key)
  const used = doc.owners.some((o) => lc(o.address) === lc(address) || o.agents.some((g) => lc(g.address) === lc(address)))
  if (used) {
    key.fill(0)
    throw vaultError('KeyInUse', 'the new identity key collides with an account key') // 2^-160: never, but never an account key
  }
  doc.team = { ...team, identity: { address, createdAt: nowIso(now), key: sealRecord(master, key, teamAad.identity(address)) } }
  return { doc, value: address, addKeys: new Map([[lc(address), key]]) }
}

export function putTeamSecret(doc: VaultBody, master: Buffer, name: TeamSecretName, value: string): DocChange<void> {
  if (!TEAM_SECRETS.includes(name)) throw vaultError('InvalidTeamSecret', `unknown team secret ${String(name)}`)
  if (typeof value !== 'string' || value === '' || value.length > 1024)
    throw vaultError('InvalidTeamSecret', 'a team secret is 1 to 1024 characters')
  const team = teamOf(doc)
  const sealed = sealRecord(master, Buffer.from(value, 'utf8'), teamAad.secret(name))
  doc.team = {
    ...team,
    secrets: [...team.secrets.filter((s) => s.name !== name), { name, value: sealed }].sort((a, b) => (a.name < b.name ? -1 : 1)),
  }
  return { doc, value: undefined }
}

/** Removes a team secret (a desk leaving its team through the chain). */
export function dropTeamSecret(doc: VaultBody, name: TeamSecretName): DocChange<void> {
  if (!TEAM_SECRETS.includes(name)) throw vaultError('InvalidTeamSecret', `unknown team secret ${String(name)}`)
  const team = teamOf(doc)
  doc.team = { ...team, secrets: team.secrets.filter((s) => s.name !== name) }
  return { doc, value: undefined }
}

export function openTeamSecret(doc: Pick<VaultBody, 'team'>, master: Buffer, name: TeamSecretName): string | null {
  const s = doc.team?.secrets.find((x) => x.name === name)
  if (!s) return null
  const plain = openRecord(master, s.value, teamAad.secret(name))
  if (!plain) throw vaultError('VaultCorrupt', `the team secret ${name} in the vault is damaged`)
  try {
    return plain.toString('utf8')
  } finally {
    plain.fill(0)
  }
}

/** Re-seals the team section under a new master key (passphrase change), in the same write. */
export function resealTeam(doc: VaultBody, keys: KeyRing, oldMaster: Buffer, newMaster: Buffer): void {
  if (!doc.team) return
  const { identity, secrets } = doc.team
  let nextIdentity = identity
  if (identity) {
    const key = keys.get(lc(identity.address))
    if (!key) throw vaultError('VaultCorrupt', `the identity key ${identity.address} is missing from the unlocked vault`)
    nextIdentity = { ...identity, key: sealRecord(newMaster, key, teamAad.identity(identity.address)) }
  }
  const nextSecrets = secrets.map((s) => {
    const plain = openRecord(oldMaster, s.value, teamAad.secret(s.name))
    if (!plain) throw vaultError('VaultCorrupt', `the team secret ${s.name} in the vault is damaged`)
    try {
      return { name: s.name, value: sealRecord(newMaster, plain, teamAad.secret(s.name)) }
    } finally {
      plain.fill(0)
    }
  })
  doc.team = { identity: nextIdentity, secrets: nextSecrets }
}

/** EIP-712 signature by the identity key `address` from the unlocked keys (undefined: locked). */
export async function signAsIdentityKey(keys: KeyRing | undefined, address: Address, typedData: TypedDataDefinition): Promise<Hex> {
  if (!keys) throw vaultError('VaultLocked', 'the vault is locked; unlock it to sign')
  let digest: Hex
  try {
    digest = hashTypedData(typedData)
  } catch (e) {
    throw vaultError('InvalidTypedData', `the typed data cannot be encoded: ${(e as Error).message.split('\n')[0]}`)
  }
  const key = keys.get(lc(address))
  if (!key) throw vaultError('VaultCorrupt', `the identity key ${address} is missing from the unlocked vault`)
  return sign({ hash: digest, privateKey: bytesToHex(key), to: 'hex' })
}
