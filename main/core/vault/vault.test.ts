import { promises as fs, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { bytesToHex, hexToBytes, keccak256, recoverAddress, recoverTypedDataAddress } from 'viem'
import { privateKeyToAccount, sign } from 'viem/accounts'
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import vectors from './testing/geth-v3-test-vectors.json'
import {
  DEV_ADDRESS_0,
  DEV_ADDRESS_1,
  DEV_KEY_0,
  DEV_KEY_1,
  LEGACY_ORDER_PAYLOAD,
  SETTLE_INTENT,
  SETTLE_TYPED_DATA,
} from './testing/fixtures'
import { deriveMasterKey, fileMac, sealRecord } from './record-cipher'
import type { ConfirmationRequest, Confirmer } from './signing-policy'
import { aad, canonicalBody, parseVaultText, serializeVault } from './vault-file'
import { Vault, vaultPath, type VaultOptions } from './vault'
import type { VaultEvent } from './types'

const LOW = { n: 1024, r: 8, p: 1 }
const PASS = 'correct horse battery staple'
const OTHER = 'another long passphrase 42'
let dir: string
let path: string

beforeEach(async () => {
  dir = await fs.mkdtemp(join(tmpdir(), 'vault-test-'))
  path = vaultPath(dir)
})
afterEach(async () => {
  vi.useRealTimers()
  await fs.rm(dir, { recursive: true, force: true })
})

async function expectCode(p: Promise<unknown>, code: string): Promise<void> {
  await expect(p).rejects.toMatchObject({ name: 'DeskError', code })
}

/** A confirmer that answers from a script and records what it was shown. */
function scriptedConfirmer(answers: Array<{ approved: boolean; passphrase?: string }>) {
  const shown: ConfirmationRequest[] = []
  const confirmer: Confirmer = { confirm: async (r) => (shown.push(r), answers.shift() ?? { approved: false }) }
  return { confirmer, shown }
}

const create = (extra: Partial<VaultOptions> = {}) => Vault.create({ path, passphrase: PASS, scrypt: LOW, autoLockMs: null, ...extra })
const owner = (a: string) => ({ owner: a as `0x${string}`, role: 'owner' as const })

describe('vault file', () => {
  it('is created with mode 0600 and holds no plaintext key, only addresses and labels', async () => {
    const v = await create()
    await v.importPrivateKey(DEV_KEY_0, 'treasury main')
    const agent = await v.generateAgentKey(DEV_ADDRESS_0, 0)
    const text = await fs.readFile(path, 'utf8')
    if (process.platform !== 'win32') expect(statSync(path).mode & 0o777).toBe(0o600)
    expect(text).toContain(DEV_ADDRESS_0)
    expect(text).toContain(agent)
    expect(text).toContain('treasury main')
    expect(text.toLowerCase()).not.toContain(DEV_KEY_0.slice(2))
    expect(JSON.parse(text)).toMatchObject({
      format: 'treasury-desk-vault',
      version: 1,
      cipher: 'aes-256-gcm',
      kdf: { name: 'scrypt', n: 1024, r: 8, p: 1 },
    })
  })

  it('refuses to overwrite an existing vault and refuses a weak passphrase', async () => {
    await create()
    await expectCode(create(), 'VaultExists')
    await expectCode(Vault.create({ path: join(dir, 'other.json'), passphrase: 'password1234', scrypt: LOW }), 'PassphraseWeak')
    expect(await Vault.exists(join(dir, 'other.json'))).toBe(false)
  })

  it('a missing vault is VaultNotFound', async () => {
    await expectCode(Vault.open({ path }), 'VaultNotFound')
  })

  it('keeps the previous version as .bak on every change', async () => {
    const v = await create()
    const first = await fs.readFile(path, 'utf8')
    await v.addWatchOnly(DEV_ADDRESS_1, 'watched')
    expect(await fs.readFile(`${path}.bak`, 'utf8')).toBe(first)
    if (process.platform !== 'win32') expect(statSync(`${path}.bak`).mode & 0o777).toBe(0o600)
  })
})

describe('lock and unlock', () => {
  it('opens locked with accounts visible; unlock enables signing; wrong passphrase changes nothing', async () => {
    const v1 = await create()
    await v1.importPrivateKey(DEV_KEY_0, 'main')
    await v1.addWatchOnly(DEV_ADDRESS_1, 'watched')
    const before = await fs.readFile(path)

    const v = await Vault.open({ path, autoLockMs: null })
    expect(v.isUnlocked).toBe(false)
    expect(v.listAccounts().map((a) => [a.address, a.label, a.watchOnly])).toEqual([
      [DEV_ADDRESS_0, 'main', false],
      [DEV_ADDRESS_1, 'watched', true],
    ])
    await expectCode(v.signLegacy(owner(DEV_ADDRESS_0), LEGACY_ORDER_PAYLOAD), 'VaultLocked')
    await expectCode(v.unlock('wrong passphrase entirely'), 'PassphraseIncorrect')
    expect(v.isUnlocked).toBe(false)
    expect(await fs.readFile(path)).toEqual(before)
    await v.unlock(PASS)
    expect(v.isUnlocked).toBe(true)
    await expect(v.signLegacy(owner(DEV_ADDRESS_0), LEGACY_ORDER_PAYLOAD)).resolves.toMatch(/^0x[0-9a-f]{130}$/)
  })

  it('lock zeroes the decrypted key buffers and emits an event', async () => {
    const v = await create()
    await v.importPrivateKey(DEV_KEY_0)
    const events: VaultEvent[] = []
    v.onEvent((e) => events.push(e))
    const internal = v as unknown as { unlocked: { master: Buffer; keys: Map<string, Uint8Array> } }
    const key = internal.unlocked.keys.get(DEV_ADDRESS_0.toLowerCase())!
    const master = internal.unlocked.master
    expect(bytesToHex(key)).toBe(DEV_KEY_0)
    v.lock()
    expect(key.every((b) => b === 0)).toBe(true)
    expect(master.every((b) => b === 0)).toBe(true)
    expect(events).toEqual([{ type: 'locked', reason: 'manual' }])
    await expectCode(v.signLegacy(owner(DEV_ADDRESS_0), LEGACY_ORDER_PAYLOAD), 'VaultLocked')
  })

  it('auto-locks after the idle time; touch() postpones it', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date'] })
    const v = await create({ autoLockMs: 60_000 })
    const events: VaultEvent[] = []
    v.onEvent((e) => events.push(e))
    vi.advanceTimersByTime(59_000)
    v.touch()
    vi.advanceTimersByTime(59_000)
    expect(v.isUnlocked).toBe(true)
    vi.advanceTimersByTime(1_001)
    expect(v.isUnlocked).toBe(false)
    expect(events).toEqual([{ type: 'locked', reason: 'idle' }])
  })

  it('unlock self-test refuses a validly encrypted record whose key is not its address (and stays locked)', async () => {
    const v = await create()
    await v.importPrivateKey(DEV_KEY_0)
    v.lock()
    // Forge a file as someone holding the passphrase could: correct MAC and AAD, wrong key.
    const doc = parseVaultText(await fs.readFile(path, 'utf8'), path)
    const master = await deriveMasterKey(PASS, Buffer.from(doc.kdf.salt, 'hex'), LOW)
    doc.owners[0]!.key = sealRecord(master, hexToBytes(DEV_KEY_1), aad.owner(DEV_ADDRESS_0))
    doc.mac = fileMac(master, canonicalBody(doc))
    await fs.writeFile(path, serializeVault(doc))
    const r = await Vault.open({ path })
    await expectCode(r.unlock(PASS), 'VaultSelfTestFailed')
    expect(r.isUnlocked).toBe(false)
  })

  it('with the default scrypt parameters (N=2^18, r=8, p=1) unlock runs off the main thread', async () => {
    const v = await Vault.create({ path, passphrase: PASS, autoLockMs: null })
    expect(v.kdfParams()).toEqual({ n: 262144, r: 8, p: 1 })
    await v.importPrivateKey(DEV_KEY_0)
    const reopened = await Vault.open({ path })
    // Count event-loop turns while scrypt runs: a synchronous KDF would allow none.
    let turns = 0
    let running = true
    const spin = () => {
      turns++
      if (running) setImmediate(spin)
    }
    setImmediate(spin)
    await reopened.unlock(PASS)
    running = false
    expect(turns).toBeGreaterThan(20)
    expect(reopened.canSign(owner(DEV_ADDRESS_0))).toBe(true)
  })

  it('change passphrase re-encrypts atomically: old fails, new unlocks, keys unchanged', async () => {
    const v = await create()
    await v.importPrivateKey(DEV_KEY_0)
    const agent = await v.generateAgentKey(DEV_ADDRESS_0, 2)
    await expectCode(v.changePassphrase('not the passphrase', OTHER), 'PassphraseIncorrect')
    await expectCode(v.changePassphrase(PASS, 'weak'), 'PassphraseWeak')
    const before = JSON.parse(await fs.readFile(path, 'utf8')) as { kdf: { salt: string } }
    await v.changePassphrase(PASS, OTHER)
    const after = JSON.parse(await fs.readFile(path, 'utf8')) as { kdf: { salt: string } }
    expect(after.kdf.salt).not.toBe(before.kdf.salt)
    const sigBefore = await v.signLegacy({ owner: DEV_ADDRESS_0, role: 'agent', slot: 2 }, LEGACY_ORDER_PAYLOAD)

    const r = await Vault.open({ path })
    await expectCode(r.unlock(PASS), 'PassphraseIncorrect')
    await r.unlock(OTHER)
    expect(r.addressOf({ owner: DEV_ADDRESS_0, role: 'agent', slot: 2 })).toBe(agent)
    expect(await r.signLegacy({ owner: DEV_ADDRESS_0, role: 'agent', slot: 2 }, LEGACY_ORDER_PAYLOAD)).toBe(sigBefore)
  })
})

describe('accounts and import', () => {
  it('imports raw keys, keystores, generated keys and watch-only addresses; all survive reopening', async () => {
    const v = await create()
    expect(await v.importPrivateKey(DEV_KEY_0, 'raw')).toBe(DEV_ADDRESS_0)
    const pb = vectors.wikipage_test_vector_pbkdf2
    const fromKeystore = await v.importKeystore(JSON.stringify(pb.json), pb.password, 'from keystore')
    expect(fromKeystore).toBe(privateKeyToAccount(`0x${pb.priv}`).address)
    const generated = await v.generateOwnerKey('fresh')
    await v.addWatchOnly(DEV_ADDRESS_1.toLowerCase(), 'cold')

    const r = await Vault.open({ path })
    expect(r.listAccounts().map((a) => ({ address: a.address, label: a.label, watchOnly: a.watchOnly }))).toEqual([
      { address: DEV_ADDRESS_0, label: 'raw', watchOnly: false },
      { address: fromKeystore, label: 'from keystore', watchOnly: false },
      { address: generated, label: 'fresh', watchOnly: false },
      { address: DEV_ADDRESS_1, label: 'cold', watchOnly: true },
    ])
    await r.unlock(PASS)
    for (const a of [DEV_ADDRESS_0, fromKeystore, generated]) expect(r.canSign(owner(a))).toBe(true)
    expect(r.canSign(owner(DEV_ADDRESS_1))).toBe(false)
  })

  it('refuses duplicates; a watch-only account becomes signable when its key is imported', async () => {
    const v = await create()
    await v.addWatchOnly(DEV_ADDRESS_0, 'watch first')
    await expectCode(v.addWatchOnly(DEV_ADDRESS_0), 'AccountExists')
    await expectCode(v.signLegacy(owner(DEV_ADDRESS_0), LEGACY_ORDER_PAYLOAD), 'WatchOnlyAccount')
    await v.importPrivateKey(DEV_KEY_0)
    expect(v.listAccounts()[0]).toMatchObject({ label: 'watch first', watchOnly: false })
    await expectCode(v.importPrivateKey(DEV_KEY_0), 'AccountExists')
  })

  it('bad input is a typed error and leaves the file unchanged', async () => {
    const v = await create()
    const before = await fs.readFile(path)
    await expectCode(v.importPrivateKey('0x1234zz'), 'InvalidHex')
    await expectCode(v.importPrivateKey('0x' + 'ff'.repeat(32)), 'InvalidPrivateKey')
    await expectCode(v.importPrivateKey('0x' + '00'.repeat(32)), 'InvalidPrivateKey')
    await expectCode(v.importKeystore('{"version":3', 'x'), 'KeystoreInvalid')
    await expectCode(v.importKeystore(vectors['30_byte_key'].json, 'wrong'), 'KeystoreMacMismatch')
    await expectCode(v.addWatchOnly('0xnotanaddress'), 'InvalidAddress')
    await expectCode(v.importPrivateKey(DEV_KEY_1, 'x'.repeat(65)), 'InvalidLabel')
    expect(await fs.readFile(path)).toEqual(before)
  })

  it('remove deletes the account and its agent keys', async () => {
    const v = await create()
    await v.importPrivateKey(DEV_KEY_0)
    const agent = await v.generateAgentKey(DEV_ADDRESS_0, 1)
    await v.removeAccount(DEV_ADDRESS_0)
    expect(v.listAccounts()).toEqual([])
    expect(v.retiredAgents()).toMatchObject([{ owner: DEV_ADDRESS_0, slot: 1, address: agent }])
    await expectCode(v.signLegacy(owner(DEV_ADDRESS_0), LEGACY_ORDER_PAYLOAD), 'AccountNotInVault')
    expect((await fs.readFile(path, 'utf8')).includes(DEV_ADDRESS_0)).toBe(true) // only as a retired agent's owner
    await expectCode(v.removeAccount(DEV_ADDRESS_0), 'AccountNotInVault')
  })

  it('exports a key as a v3 keystore that imports elsewhere, only with the vault passphrase re-entered', async () => {
    const v = await create()
    await v.importPrivateKey(DEV_KEY_0)
    const agent = await v.generateAgentKey(DEV_ADDRESS_0, 3)
    const kdf = { kdf: 'scrypt' as const, scrypt: LOW }
    await expectCode(
      v.exportKeystore(DEV_ADDRESS_0, { vaultPassphrase: 'wrong passphrase here', keystorePassphrase: OTHER, kdf }),
      'PassphraseIncorrect',
    )
    await expectCode(v.exportKeystore(DEV_ADDRESS_0, { vaultPassphrase: PASS, keystorePassphrase: 'short', kdf }), 'PassphraseWeak')
    const ks = await v.exportKeystore(DEV_ADDRESS_0, { vaultPassphrase: PASS, keystorePassphrase: OTHER, kdf })
    expect(ks.address).toBe(DEV_ADDRESS_0.slice(2).toLowerCase())
    const agentKs = await v.exportKeystore(agent, { vaultPassphrase: PASS, keystorePassphrase: OTHER, kdf })
    expect(agentKs.address).toBe(agent.slice(2).toLowerCase())

    const other = await Vault.create({ path: join(dir, 'second.json'), passphrase: OTHER, scrypt: LOW, autoLockMs: null })
    expect(await other.importKeystore(JSON.stringify(ks), OTHER)).toBe(DEV_ADDRESS_0)
    expect(await other.signLegacy(owner(DEV_ADDRESS_0), LEGACY_ORDER_PAYLOAD)).toBe(
      await v.signLegacy(owner(DEV_ADDRESS_0), LEGACY_ORDER_PAYLOAD),
    )
  })
})

describe('signing', () => {
  it('legacy: 65-byte r||s||v over keccak256(payload), no prefix, identical to the bare viem call', async () => {
    const v = await create()
    await v.importPrivateKey(DEV_KEY_0)
    const sig = await v.signLegacy(owner(DEV_ADDRESS_0), LEGACY_ORDER_PAYLOAD)
    const hash = keccak256(LEGACY_ORDER_PAYLOAD)
    expect(sig).toBe(await sign({ hash, privateKey: DEV_KEY_0, to: 'hex' }))
    expect(sig.length).toBe(2 + 130)
    expect(['1b', '1c']).toContain(sig.slice(-2))
    expect(await recoverAddress({ hash, signature: sig })).toBe(DEV_ADDRESS_0)
  })

  it('agent keys: generated per (owner, slot), address only, sign for their slot, retire, replace', async () => {
    const v = await create()
    await v.importPrivateKey(DEV_KEY_0)
    await v.importPrivateKey(DEV_KEY_1)
    const a0 = await v.generateAgentKey(DEV_ADDRESS_0, 0)
    expect(a0).toMatch(/^0x[0-9a-fA-F]{40}$/)
    expect(v.addressOf({ owner: DEV_ADDRESS_0, role: 'agent', slot: 0 })).toBe(a0)
    expect(v.addressOf({ owner: DEV_ADDRESS_1, role: 'agent', slot: 0 })).toBeNull()
    const sig = await v.signLegacy({ owner: DEV_ADDRESS_0, role: 'agent', slot: 0 }, LEGACY_ORDER_PAYLOAD)
    expect(await recoverAddress({ hash: keccak256(LEGACY_ORDER_PAYLOAD), signature: sig })).toBe(a0)
    // Another owner's slot does not reach this key.
    await expectCode(v.signLegacy({ owner: DEV_ADDRESS_1, role: 'agent', slot: 0 }, LEGACY_ORDER_PAYLOAD), 'AgentKeyNotFound')
    await expectCode(v.signLegacy({ owner: a0, role: 'owner' }, LEGACY_ORDER_PAYLOAD), 'AccountNotInVault')
    await expectCode(v.generateAgentKey(DEV_ADDRESS_0, 0), 'AgentSlotOccupied')
    await expectCode(v.generateAgentKey(DEV_ADDRESS_0, 4 as 0), 'InvalidAgentSlot')
    const a0b = await v.generateAgentKey(DEV_ADDRESS_0, 0, { replace: true })
    expect(a0b).not.toBe(a0)
    expect(await v.retireAgentKey(DEV_ADDRESS_0, 0)).toBe(a0b)
    expect(v.retiredAgents().map((r) => r.address)).toEqual([a0, a0b])
    await expectCode(v.signLegacy({ owner: DEV_ADDRESS_0, role: 'agent', slot: 0 }, LEGACY_ORDER_PAYLOAD), 'AgentKeyNotFound')
    await expectCode(v.retireAgentKey(DEV_ADDRESS_0, 0), 'AgentKeyNotFound')
  })

  it('EIP-712 with an owner key goes through the confirmation gate and matches viem', async () => {
    let t = Date.parse('2026-01-01T00:00:00Z')
    const { confirmer, shown } = scriptedConfirmer([
      { approved: false },
      { approved: true },
      { approved: true, passphrase: 'not it at all' },
      { approved: true, passphrase: PASS },
    ])
    const v = await create({ confirmer, reentryWindowMs: 60_000, now: () => t })
    await v.importPrivateKey(DEV_KEY_0)
    const ref = owner(DEV_ADDRESS_0)
    await expectCode(v.signTypedData(ref, SETTLE_TYPED_DATA), 'ConfirmationRequired')
    await expectCode(v.signTypedData(ref, SETTLE_TYPED_DATA, SETTLE_INTENT), 'ConfirmationDeclined')
    const sig = await v.signTypedData(ref, SETTLE_TYPED_DATA, SETTLE_INTENT)
    expect(sig).toBe(await privateKeyToAccount(DEV_KEY_0).signTypedData(SETTLE_TYPED_DATA))
    expect(await recoverTypedDataAddress({ ...SETTLE_TYPED_DATA, signature: sig })).toBe(DEV_ADDRESS_0)
    t += 60_001
    await expectCode(v.signTypedData(ref, SETTLE_TYPED_DATA, SETTLE_INTENT), 'PassphraseIncorrect')
    await v.signTypedData(ref, SETTLE_TYPED_DATA, SETTLE_INTENT)
    expect(shown.map((s) => s.needsPassphrase)).toEqual([false, false, true, true])
    expect(shown[0]).toMatchObject({ title: SETTLE_INTENT.title, summary: SETTLE_INTENT.summary })
  })

  it('EIP-712 refuses watch-only, locked and unknown signers before asking the operator', async () => {
    const { confirmer, shown } = scriptedConfirmer([])
    const v = await create({ confirmer })
    await v.addWatchOnly(DEV_ADDRESS_1)
    await expectCode(v.signTypedData(owner(DEV_ADDRESS_1), SETTLE_TYPED_DATA, SETTLE_INTENT), 'WatchOnlyAccount')
    await expectCode(v.signTypedData(owner(DEV_ADDRESS_0), SETTLE_TYPED_DATA, SETTLE_INTENT), 'AccountNotInVault')
    v.lock()
    await expectCode(v.signTypedData(owner(DEV_ADDRESS_1), SETTLE_TYPED_DATA, SETTLE_INTENT), 'VaultLocked')
    expect(shown).toEqual([])
  })

  it('agent EIP-712 signatures need no confirmation; malformed typed data is a typed error', async () => {
    const v = await create()
    await v.importPrivateKey(DEV_KEY_0)
    const agent = await v.generateAgentKey(DEV_ADDRESS_0, 1)
    const sig = await v.signTypedData({ owner: DEV_ADDRESS_0, role: 'agent', slot: 1 }, SETTLE_TYPED_DATA)
    expect(await recoverTypedDataAddress({ ...SETTLE_TYPED_DATA, signature: sig })).toBe(agent)
    const bad = { ...SETTLE_TYPED_DATA, message: { ...SETTLE_TYPED_DATA.message, cash_account: '0x1234' } }
    await expectCode(
      v.signTypedData({ owner: DEV_ADDRESS_0, role: 'agent', slot: 1 }, bad as unknown as typeof SETTLE_TYPED_DATA),
      'InvalidTypedData',
    )
  })
})
