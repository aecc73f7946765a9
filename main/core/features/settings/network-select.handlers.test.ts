/** `networks.select`: the session a read opens while the old one closes is the newly selected network's. */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { SettingsStore } from '../../config/settings'
import { openJournalFile } from '../../journal'
import { PolicyBook } from '../../policy'
import type { SessionHolder } from '../../session'
import type { AccountDirectory } from '../accounts'
import type { VaultHolder } from '../vault'
import { settingsHandlers } from './handlers'

describe('networks.select', () => {
  const dirs: string[] = []
  afterEach(() => {
    for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true })
  })

  it('the setting is the new network before the old session closes, so a read during the switch opens the new one', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'net-select-'))
    dirs.push(dir)
    const settings = new SettingsStore(dir)
    const journal = openJournalFile(':memory:')
    const policy = new PolicyBook({ dataDir: dir, journal, now: () => 1_000, verifyPassphrase: async () => true, ownAccounts: () => [] })
    settings.saveNetwork({ ...settings.network('sandbox'), name: 'lab', kind: 'custom' } as never)
    expect(settings.load().selectedNetwork).not.toBe('lab')
    // What a concurrent read would open while the old session closes: the network selected at that moment.
    const openedDuringSwitch: string[] = []
    const sessions = {
      reset: async () => {
        openedDuringSwitch.push(settings.selected().name)
      },
    } as unknown as SessionHolder
    const h = settingsHandlers({
      settings,
      sessions,
      vault: { current: null } as unknown as VaultHolder,
      accounts: { forget: () => {} } as unknown as AccountDirectory,
      policy,
      host: 'web',
      version: 'test',
    })
    const view = await h['networks.select']({ name: 'lab' }, { host: 'test' })
    expect(view.name).toBe('lab')
    expect(openedDuringSwitch).toEqual(['lab'])
    journal.close()
  })
})
