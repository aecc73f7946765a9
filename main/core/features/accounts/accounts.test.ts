/**
 * The accounts feature through the app contract, as the hosts call it: the operator's accounts by
 * name and address, watch-only accounts, renaming and groups, with bad input refused by a typed
 * error and nothing changed; raw key import answers the desk command line only.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { shortAddress } from '../../../contract/format'
import type { AccountView } from '../../../contract/types'
import { SettingsStore } from '../../config/settings'
import { ConfirmBroker } from '../../ipc/confirm-broker'
import { createDispatcher, type CallContext, type HandlerTable } from '../../ipc/dispatch'
import { EventHub } from '../../ipc/events'
import { notifier } from '../../ipc/notify'
import { DEV_ADDRESS_0, DEV_ADDRESS_1, DEV_KEY_0 } from '../../vault/testing/fixtures'
import { VaultHolder } from '../vault'
import { AccountDirectory } from './account-directory'
import { ACCOUNT_META_FILE, AccountMetaStore } from './account-meta'
import { confirmationContext } from './confirmation-context'
import { accountsHandlers } from './handlers'
import { keyImportHandlers } from './key-import.handlers'

const PASS = 'correct horse battery staple'
const lower = (a: string) => a.toLowerCase()

let dir: string
let vault: VaultHolder

function holder(settings: SettingsStore): VaultHolder {
  const events = new EventHub()
  return new VaultHolder({
    dataDir: dir,
    settings,
    confirm: new ConfirmBroker(events),
    events,
    notify: notifier(events, Date.now),
    now: Date.now,
    scryptN: 2 ** 12,
  })
}

/** The real accounts and key-import handlers behind the real dispatcher (contract schemas, host checks). */
function desk() {
  const settings = new SettingsStore(dir)
  vault?.lock('operator') // a restart: the previous holder is done with
  vault = holder(settings)
  const accounts = new AccountDirectory(vault, new AccountMetaStore(dir))
  const handlers = { ...accountsHandlers({ vault, accounts, settings, demoAccounts: [] }), ...keyImportHandlers({ vault }) }
  const dispatch = createDispatcher(handlers as HandlerTable)
  const call = (channel: string, args: unknown, host: CallContext['host'] = 'electron') => dispatch(channel, args, { host })
  /** The value of a call that must succeed. */
  const ok = async <T>(channel: string, args: unknown, host: CallContext['host'] = 'electron'): Promise<T> => {
    const r = await call(channel, args, host)
    if (!r.ok) throw new Error(`${channel} failed: ${r.error.code} ${r.error.message}`)
    return r.value as T
  }
  const list = () => ok<AccountView[]>('accounts.list', undefined)
  return { settings, accounts, handlers, call, ok, list }
}

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'desk-accounts-'))
})
afterEach(() => {
  vault?.lock('operator')
  rmSync(dir, { recursive: true, force: true })
})

async function unlocked() {
  const d = desk()
  await vault.create(PASS)
  return d
}

describe('accounts: listing and watch-only', () => {
  it('lists each account by name and lower-case address; a watch-only account has no key, an unnamed one is named by its short address', async () => {
    const d = await unlocked()
    expect(await d.list()).toEqual([])
    const hot = await d.ok<AccountView>('accounts.generate', { label: 'Treasury hot' })
    const cold = await d.ok<AccountView>('accounts.watch', { address: DEV_ADDRESS_1, label: 'Cold store' }, 'web')
    expect(cold).toEqual({
      address: lower(DEV_ADDRESS_1),
      label: 'Cold store',
      group: '',
      hasKey: false,
      kind: 'unknown',
      status: 'unknown',
      accountIndex: null,
    })
    expect(hot).toMatchObject({ label: 'Treasury hot', hasKey: true })
    expect(hot.address).toMatch(/^0x[0-9a-f]{40}$/)
    const unnamed = await d.ok<AccountView>('accounts.watch', { address: DEV_ADDRESS_0, label: '' })
    expect(unnamed.label).toBe(shortAddress(DEV_ADDRESS_0))
    expect((await d.list()).map((a) => [a.label, a.address, a.hasKey])).toEqual([
      ['Treasury hot', hot.address, true],
      ['Cold store', lower(DEV_ADDRESS_1), false],
      [shortAddress(DEV_ADDRESS_0), lower(DEV_ADDRESS_0), false],
    ])
    // What the exchange said about an account shows on its row once known.
    d.accounts.remember(DEV_ADDRESS_1, { kind: 'credit', status: 'active', accountIndex: '7' })
    expect((await d.list())[1]).toMatchObject({ kind: 'credit', status: 'active', accountIndex: '7' })
  })

  it('a bad address is refused with a typed error and adds nothing', async () => {
    const d = await unlocked()
    const r = await d.call('accounts.watch', { address: '0x1234', label: 'short' })
    expect(r).toMatchObject({ ok: false, error: { code: 'InvalidArguments', details: { channel: 'accounts.watch' } } })
    expect(r.ok || r.error.message).toMatch(/address: must be a 0x-prefixed 20-byte address/)
    // main checks again below the contract (a caller that skips the dispatcher)
    await expect(d.handlers['accounts.watch']({ address: '0xnot-an-address', label: '' }, { host: 'test' })).rejects.toMatchObject({
      code: 'InvalidAddress',
    })
    expect(await d.list()).toEqual([])
  })

  it('the same address twice is refused (AccountExists), whatever its letter case, and the first stays as it was', async () => {
    const d = await unlocked()
    await d.ok('accounts.watch', { address: DEV_ADDRESS_1, label: 'Cold store' })
    for (const address of [DEV_ADDRESS_1, lower(DEV_ADDRESS_1), '0x' + DEV_ADDRESS_1.slice(2).toUpperCase()]) {
      const r = await d.call('accounts.watch', { address, label: 'again' })
      expect(r).toMatchObject({ ok: false, error: { code: 'AccountExists' } })
    }
    expect((await d.list()).map((a) => a.label)).toEqual(['Cold store'])
  })

  it('without the vault, or with it locked, nothing is added (VaultMissing, VaultLocked)', async () => {
    const d = desk()
    expect(await d.call('accounts.watch', { address: DEV_ADDRESS_1, label: '' })).toMatchObject({
      ok: false,
      error: { code: 'VaultMissing' },
    })
    expect(await d.list()).toEqual([])
    await vault.create(PASS)
    vault.lock('operator')
    expect(await d.call('accounts.watch', { address: DEV_ADDRESS_1, label: '' })).toMatchObject({
      ok: false,
      error: { code: 'VaultLocked' },
    })
    expect(await d.list()).toEqual([])
  })

  it('removing an account drops it from the list; an unknown one is a typed error', async () => {
    const d = await unlocked()
    await d.ok('accounts.watch', { address: DEV_ADDRESS_1, label: 'Cold store' })
    expect(await d.ok('accounts.remove', { address: DEV_ADDRESS_1 })).toEqual({ removed: lower(DEV_ADDRESS_1) })
    expect(await d.list()).toEqual([])
    expect(await d.call('accounts.remove', { address: DEV_ADDRESS_1 })).toMatchObject({ ok: false, error: { code: 'AccountNotInVault' } })
  })
})

describe('accounts: renaming and groups', () => {
  it('a rename is kept in the vault (a new start lists the new name)', async () => {
    const d = await unlocked()
    await d.ok('accounts.watch', { address: DEV_ADDRESS_1, label: 'Cold store' })
    expect(await d.ok<AccountView>('accounts.update', { address: DEV_ADDRESS_1, label: '  Payroll  ' })).toMatchObject({
      address: lower(DEV_ADDRESS_1),
      label: 'Payroll',
    })
    const again = desk()
    await vault.open()
    expect((await again.list()).map((a) => a.label)).toEqual(['Payroll'])
  })

  it('a name over 64 characters or with control characters is refused with a typed error; the name stays', async () => {
    const d = await unlocked()
    await d.ok('accounts.watch', { address: DEV_ADDRESS_1, label: 'Cold store' })
    const long = await d.call('accounts.update', { address: DEV_ADDRESS_1, label: 'x'.repeat(65) })
    expect(long).toMatchObject({ ok: false, error: { code: 'InvalidArguments', details: { channel: 'accounts.update' } } })
    await expect(d.handlers['accounts.update']({ address: DEV_ADDRESS_1, label: 'x'.repeat(65) }, { host: 'test' })).rejects.toMatchObject({
      code: 'InvalidLabel',
    })
    expect(await d.call('accounts.update', { address: DEV_ADDRESS_1, label: 'Pay\nroll' })).toMatchObject({
      ok: false,
      error: { code: 'InvalidLabel' },
    })
    expect((await d.list())[0]!.label).toBe('Cold store')
    // exactly 64 is accepted
    expect((await d.ok<AccountView>('accounts.update', { address: DEV_ADDRESS_1, label: 'y'.repeat(64) })).label).toBe('y'.repeat(64))
  })

  it('an empty or blank name is not stored: the account is named by its short address again (every account keeps a name)', async () => {
    const d = await unlocked()
    await d.ok('accounts.watch', { address: DEV_ADDRESS_1, label: 'Cold store' })
    for (const label of ['', '   ']) {
      const v = await d.ok<AccountView>('accounts.update', { address: DEV_ADDRESS_1, label })
      expect(v.label).toBe(shortAddress(DEV_ADDRESS_1))
    }
  })

  it('renaming an account not in the vault is a typed error', async () => {
    const d = await unlocked()
    expect(await d.call('accounts.update', { address: DEV_ADDRESS_1, label: 'Ghost' })).toMatchObject({
      ok: false,
      error: { code: 'AccountNotInVault' },
    })
  })

  it('groups: set, listed, kept across a restart in accounts.json, cleared by an empty group; a long one is refused', async () => {
    const d = await unlocked()
    await d.ok('accounts.watch', { address: DEV_ADDRESS_1, label: 'Cold store' })
    await d.ok('accounts.watch', { address: DEV_ADDRESS_0, label: 'Ops' })
    expect(await d.ok<AccountView>('accounts.update', { address: DEV_ADDRESS_1, group: 'Reserves' })).toMatchObject({
      label: 'Cold store',
      group: 'Reserves',
    })
    expect((await d.list()).map((a) => a.group)).toEqual(['Reserves', ''])
    const again = desk()
    await vault.open()
    expect((await again.list()).map((a) => a.group)).toEqual(['Reserves', ''])

    expect(await again.call('accounts.update', { address: DEV_ADDRESS_0, group: 'g'.repeat(65) })).toMatchObject({
      ok: false,
      error: { code: 'InvalidArguments' },
    })
    await vault.unlock(PASS)
    await again.ok('accounts.update', { address: DEV_ADDRESS_1, group: '' })
    expect((await again.list()).map((a) => a.group)).toEqual(['', ''])
    expect(JSON.parse(readFileSync(join(dir, ACCOUNT_META_FILE), 'utf8'))).toEqual({ version: 1, groups: {} })
  })

  it('a damaged accounts.json is a typed error naming the file, and is left untouched', async () => {
    const d = await unlocked()
    await d.ok('accounts.watch', { address: DEV_ADDRESS_1, label: 'Cold store' })
    const file = join(dir, ACCOUNT_META_FILE)
    writeFileSync(file, '{ not json')
    const again = desk()
    await vault.open()
    const r = await again.call('accounts.list', undefined)
    expect(r).toMatchObject({ ok: false, error: { code: 'AccountMetaCorrupt', details: { file } } })
    expect(readFileSync(file, 'utf8')).toBe('{ not json')
  })
})

describe('accounts: key import is for the desk command line only', () => {
  it.each(['electron', 'web'] as const)('the %s host is refused (CliOnly) and the vault is unchanged', async (host) => {
    const d = await unlocked()
    const keyFile = join(dir, 'key.txt')
    writeFileSync(keyFile, DEV_KEY_0 + '\n', { mode: 0o600 })
    writeFileSync(join(dir, 'ks.json'), '{}')
    for (const [channel, args] of [
      ['accounts.importKey', { key: { file: keyFile }, label: 'Hot' }],
      ['accounts.importKey', { key: { value: DEV_KEY_0 } }],
      ['accounts.importKeystoreFile', { file: join(dir, 'ks.json'), keystorePassphrase: { value: 'pw' } }],
    ] as const) {
      expect(await d.call(channel, args, host)).toMatchObject({ ok: false, error: { code: 'CliOnly', details: { channel } } })
    }
    expect(await d.list()).toEqual([])
  })

  it('the desk imports a key read from a file: only the address comes back; a watch-only account gains its key and keeps its name', async () => {
    const d = await unlocked()
    await d.ok('accounts.watch', { address: DEV_ADDRESS_0, label: 'Ops' })
    const keyFile = join(dir, 'key.txt')
    writeFileSync(keyFile, DEV_KEY_0 + '\n', { mode: 0o600 })
    expect(await d.ok('accounts.importKey', { key: { file: keyFile } }, 'cli')).toEqual({ address: DEV_ADDRESS_0 })
    expect(await d.list()).toMatchObject([{ address: lower(DEV_ADDRESS_0), label: 'Ops', hasKey: true }])
    // the same key again is refused, typed
    expect(await d.call('accounts.importKey', { key: { file: keyFile } }, 'cli')).toMatchObject({
      ok: false,
      error: { code: 'AccountExists' },
    })
  })
})

describe('confirmations name the network and each account by name and address', () => {
  it('prepends the network and puts the name before every known address', async () => {
    const d = await unlocked()
    await d.ok('accounts.watch', { address: DEV_ADDRESS_1, label: 'Cold store' })
    const withContext = confirmationContext(d.settings, d.accounts)
    const network = d.settings.selected()
    const r = withContext({
      title: 'Transfer',
      summary: [`From ${lower(DEV_ADDRESS_1)}`, `To ${DEV_ADDRESS_0}`],
      needsPassphrase: false,
      details: { account: { address: lower(DEV_ADDRESS_1), name: '' } },
    })
    expect(r.summary[0]).toMatch(new RegExp(`^Network: ${network.name}`))
    expect(r.summary.slice(1)).toEqual([`From Cold store (${lower(DEV_ADDRESS_1)})`, `To ${DEV_ADDRESS_0}`])
    expect(r.details).toMatchObject({
      network: { name: network.name, kind: network.kind },
      account: { address: lower(DEV_ADDRESS_1), name: 'Cold store' },
    })
  })
})
