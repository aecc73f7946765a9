/** `networks.update` and strict limits: only the sandbox may turn them off, and other edits keep the setting. */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { strictLimitsFor } from '../../config/networks'
import { SettingsStore } from '../../config/settings'
import { openJournalFile, type Journal } from '../../journal'
import { PolicyBook } from '../../policy'
import { networkChangeHandlers } from './network-change.handlers'

describe('networks.update: strict limits', () => {
  let dir: string
  let journal: Journal
  let settings: SettingsStore
  let switched: number
  let h: ReturnType<typeof networkChangeHandlers>
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'net-strict-'))
    journal = openJournalFile(':memory:')
    settings = new SettingsStore(dir)
    const policy = new PolicyBook({ dataDir: dir, journal, now: () => 1_000, verifyPassphrase: async () => true, ownAccounts: () => [] })
    switched = 0
    h = networkChangeHandlers({ settings, policy, hasVault: () => false }, async () => {
      switched++
    })
  })
  afterEach(() => {
    journal.close()
    rmSync(dir, { recursive: true, force: true })
  })
  const update = (a: Parameters<(typeof h)['networks.update']>[0]) => h['networks.update'](a, { host: 'test' })

  it('the sandbox turns them off and on; the selected network reopens its session; another edit keeps the setting', async () => {
    expect(strictLimitsFor(settings.network('sandbox'))).toBe(true)
    const off = await update({ name: 'sandbox', strictLimits: false })
    expect(off.strictLimits).toBe(false)
    expect(strictLimitsFor(settings.network('sandbox'))).toBe(false)
    expect(switched).toBe(1)
    // a rate change must not quietly turn strict limits back on
    const rate = await update({ name: 'sandbox', infoRatePerSec: 2 })
    expect(rate.strictLimits).toBe(false)
    expect(settings.network('sandbox').infoRatePerSec).toBe(2)
    expect((await update({ name: 'sandbox', strictLimits: true })).strictLimits).toBe(true)
    expect(strictLimitsFor(settings.network('sandbox'))).toBe(true)
  })

  it('a real network refuses strict limits off with a typed error, and keeps them', async () => {
    await update({ name: 'mainnet', tradingUrl: 'https://trade.example', wsUrl: 'wss://trade.example/ws', earnUrl: 'https://earn.example' })
    await expect(update({ name: 'mainnet', strictLimits: false })).rejects.toMatchObject({
      code: 'InvalidNetwork',
      details: { path: 'strictLimits' },
    })
    await expect(update({ name: 'staging', kind: 'custom', chainId: 77, strictLimits: false })).rejects.toMatchObject({
      code: 'InvalidNetwork',
    })
    expect(settings.networks().some((n) => n.name === 'staging')).toBe(false)
    expect(strictLimitsFor(settings.network('mainnet'))).toBe(true)
    expect(settings.network('mainnet').strictLimits).toBeUndefined()
  })
})
