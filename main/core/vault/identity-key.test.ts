import { promises as fs } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { entryTypedData, genesisEntry, sealEntry, verifyChain, toStoredRow } from '../team'
import { Vault, vaultPath } from './vault'

const LOW = { n: 1024, r: 8, p: 1 }
const PASS = 'correct horse battery staple'
const OTHER = 'another long passphrase 42'
let dir: string
let path: string

beforeEach(async () => {
  dir = await fs.mkdtemp(join(tmpdir(), 'vault-identity-'))
  path = vaultPath(dir)
})
afterEach(async () => {
  await fs.rm(dir, { recursive: true, force: true })
})

/** The vault as a team signer: a genesis signed by the identity key verifies in the team chain. */
async function signsGenesis(v: Vault): Promise<boolean> {
  const address = v.identityAddress()!
  const { teamId, entry } = genesisEntry({ teamName: 'Desk team', adminQuorum: 1, members: [{ address, name: 'ann', roles: ['admin'] }] })
  const signature = await v.signAsIdentity(entryTypedData(teamId, entry))
  const sealed = sealEntry(teamId, entry, [{ signer: address.toLowerCase() as `0x${string}`, signature }])
  return (await verifyChain([toStoredRow(sealed)])).ok
}

describe('operator identity key and team secrets in the vault', () => {
  it('creates one identity key, distinct from account keys, that signs team entries and survives reopening', async () => {
    const v = await Vault.create({ path, passphrase: PASS, scrypt: LOW, autoLockMs: null })
    const account = await v.generateOwnerKey('main')
    expect(v.identityAddress()).toBeNull()
    await expect(
      v.signAsIdentity(
        entryTypedData(
          `0x${'11'.repeat(32)}`,
          genesisEntry({ teamName: 't', adminQuorum: 1, members: [{ address: account, name: 'a', roles: ['admin'] }] }).entry,
        ),
      ),
    ).rejects.toMatchObject({ code: 'IdentityKeyMissing' })
    const id = await v.createIdentityKey()
    expect(id).not.toBe(account)
    expect(v.listAccounts().map((a) => a.address)).toEqual([account]) // not an account: no SignerRef reaches it
    await expect(v.createIdentityKey()).rejects.toMatchObject({ code: 'IdentityKeyExists' })
    expect(await signsGenesis(v)).toBe(true)
    v.lock()
    await expect(
      v.signAsIdentity(
        entryTypedData(
          `0x${'11'.repeat(32)}`,
          genesisEntry({ teamName: 't', adminQuorum: 1, members: [{ address: id, name: 'a', roles: ['admin'] }] }).entry,
        ),
      ),
    ).rejects.toMatchObject({ code: 'VaultLocked' })

    const again = await Vault.open({ path, autoLockMs: null })
    expect(again.identityAddress()).toBe(id) // readable while locked
    await again.unlock(PASS)
    expect(await signsGenesis(again)).toBe(true)
  })

  it('keeps the team store password sealed (never in the file in clear) and both secrets through a passphrase change', async () => {
    const v = await Vault.create({ path, passphrase: PASS, scrypt: LOW, autoLockMs: null })
    const id = await v.createIdentityKey()
    const password = 'Zq7-team-store-password-never-in-clear'
    expect(v.teamSecret('teamStorePassword')).toBeNull()
    await v.setTeamSecret('teamStorePassword', password)
    expect(v.teamSecret('teamStorePassword')).toBe(password)
    const text = await fs.readFile(path, 'utf8')
    expect(text).not.toContain(password)
    expect(text).not.toContain(Buffer.from(password).toString('hex'))
    await expect(v.setTeamSecret('teamStorePassword', '')).rejects.toMatchObject({ code: 'InvalidTeamSecret' })

    await v.changePassphrase(PASS, OTHER)
    const again = await Vault.open({ path, autoLockMs: null })
    await again.unlock(OTHER)
    expect(again.identityAddress()).toBe(id)
    expect(again.teamSecret('teamStorePassword')).toBe(password)
    expect(await signsGenesis(again)).toBe(true)
    again.lock()
    expect(() => again.teamSecret('teamStorePassword')).toThrow(/locked/)
  })

  it('refuses a vault file whose identity record was moved onto another address', async () => {
    const v = await Vault.create({ path, passphrase: PASS, scrypt: LOW, autoLockMs: null })
    await v.createIdentityKey()
    const doc = JSON.parse(await fs.readFile(path, 'utf8'))
    doc.team.identity.address = '0x000000000000000000000000000000000000dEaD'
    delete doc.checksum
    await fs.writeFile(path, JSON.stringify(doc))
    const again = await Vault.open({ path, autoLockMs: null })
    await expect(again.unlock(PASS)).rejects.toMatchObject({ code: 'VaultCorrupt' })
  })
})
