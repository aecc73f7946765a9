import { bytesToHex } from 'viem'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { decryptKeystore } from '../main/core/vault'
import { DEV_OWNERS, devOwner } from '../sandbox/scenario/dev-keys'
import { TEST_PASSPHRASE } from '../main/testing/desk-on-sandbox'
import { openDesk, type DeskSession } from './harness'

/**
 * Drives a full session through the real bridge (Chromium -> web host socket -> dispatcher):
 * create the vault, import keys, generate an owner key, approve an agent (a key generated in
 * the vault), settle with a confirmation, read everything the screens read, export the journal.
 * Then every message that crossed, in both directions, is searched for each private key used.
 */
describe('no private key ever crosses IPC', () => {
  let s: DeskSession
  beforeAll(async () => {
    s = await openDesk()
  })
  afterAll(async () => {
    await s?.close()
  })

  it('keeps every key used in the session out of every bridge message', async () => {
    const owner0 = devOwner(0).address
    const credit = devOwner(3).address
    const results = await s.page.evaluate(
      async ({ passphrase, owner0, credit }) => {
        const desk = window.desk!
        // Answer confirmation requests the way the dialog does (approve, passphrase when asked).
        desk.on((event, payload) => {
          if (event !== 'confirm.request') return
          const p = payload as { id: string; needsPassphrase: boolean }
          void desk.invoke('confirm.respond', { id: p.id, approved: true, ...(p.needsPassphrase ? { passphrase } : {}) })
        })
        const out: Record<string, unknown> = {}
        const call = async (name: string, args?: unknown) => (out[name] = await desk.invoke(name, args))
        await call('vault.create', { passphrase })
        await call('accounts.importSandboxKeys')
        await call('accounts.generate', { label: 'fresh owner' })
        await call('portfolio.overview')
        await call('account.detail', { address: owner0 })
        await call('credit.health', { address: credit })
        await call('agents.approve', { owner: owner0, slot: 3 })
        await call('agents.list', { owner: owner0 })
        await call('settle.preview', { creditAccount: credit, cashAccount: owner0, assetId: 3, amount: '0.05' })
        await call('settle.submit', { creditAccount: credit, cashAccount: owner0, assetId: 3, amount: '0.05' })
        await call('earn.overview', { account: owner0 })
        await call('journal.query', {})
        await call('journal.export', { format: 'json', filter: {} })
        await call('vault.lock')
        await call('vault.unlock', { passphrase })
        return out
      },
      { passphrase: TEST_PASSPHRASE, owner0, credit },
    )
    for (const [name, r] of Object.entries(results)) expect(r, name).toMatchObject({ ok: true })

    // Every key the vault holds after the session: the imported development owners, the
    // generated owner key and the generated agent key (recovered here through an export).
    const vault = s.core.vault.requireUnlocked()
    const keys = new Set<string>(DEV_OWNERS.map((o) => o.privateKey.slice(2).toLowerCase()))
    const exportPass = 'export passphrase for the test 9!'
    for (const acct of vault.listAccounts()) {
      for (const address of [acct.address, ...acct.agents.map((a) => a.address)]) {
        if (acct.watchOnly && address === acct.address) continue
        const ks = await vault.exportKeystore(address, {
          vaultPassphrase: TEST_PASSPHRASE,
          keystorePassphrase: exportPass,
          kdf: { kdf: 'pbkdf2', iterations: 1024 },
        })
        keys.add(bytesToHex((await decryptKeystore(ks, exportPass)).key).slice(2))
      }
    }
    expect(keys.size).toBeGreaterThanOrEqual(DEV_OWNERS.length + 2)

    const traffic = s.messages.join('\n').toLowerCase()
    expect(s.messages.length).toBeGreaterThan(20)
    for (const k of keys) {
      expect(traffic.includes(k), `private key ${k.slice(0, 6)}… found in IPC traffic`).toBe(false)
      expect(traffic.includes(Buffer.from(k, 'hex').toString('base64').toLowerCase())).toBe(false)
    }
    // The passphrase goes in (unlock, confirmation) but is never sent back out.
    const outbound = s.messages.filter((m) => m.startsWith('out ')).join('\n')
    expect(outbound.includes(TEST_PASSPHRASE)).toBe(false)
  })
})
