import { mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { SETTINGS_FILE, SettingsStore, defaultSettings } from './settings'

let dir: string
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'desk-settings-'))
})
afterEach(() => {
  rmSync(dir, { recursive: true, force: true })
})

describe('SettingsStore', () => {
  it('starts from defaults on first run without writing anything', () => {
    const s = new SettingsStore(dir)
    expect(s.load()).toEqual(defaultSettings())
    expect(s.selected().name).toBe('sandbox')
    expect(readdirSync(dir)).toEqual([])
  })

  it('persists updates atomically and reads them back in a new store', () => {
    new SettingsStore(dir).update({
      autoLockMinutes: 30,
      theme: 'light',
      warningThresholds: { watchPct: 40, warningPct: 70, criticalPct: 85 },
    })
    const again = new SettingsStore(dir).load()
    expect(again).toMatchObject({
      autoLockMinutes: 30,
      theme: 'light',
      warningThresholds: { watchPct: 40, warningPct: 70, criticalPct: 85 },
    })
    expect(readdirSync(dir)).toEqual([SETTINGS_FILE])
  })

  it('a corrupt file is a typed error and is left untouched', () => {
    writeFileSync(join(dir, SETTINGS_FILE), '{"version":1, "selectedNet')
    const s = new SettingsStore(dir)
    expect(() => s.load()).toThrow(expect.objectContaining({ code: 'SettingsCorrupt' }))
    expect(() => s.update({ theme: 'light' })).toThrow(expect.objectContaining({ code: 'SettingsCorrupt' }))
    expect(readFileSync(join(dir, SETTINGS_FILE), 'utf8')).toBe('{"version":1, "selectedNet')
  })

  it('an invalid file names the bad field', () => {
    writeFileSync(join(dir, SETTINGS_FILE), JSON.stringify({ ...defaultSettings(), autoLockMinutes: -5 }))
    expect(() => new SettingsStore(dir).load()).toThrow(
      expect.objectContaining({ code: 'SettingsInvalid', details: expect.objectContaining({ path: 'autoLockMinutes' }) }),
    )
    writeFileSync(join(dir, SETTINGS_FILE), JSON.stringify({ ...defaultSettings(), selectedNetwork: 'nowhere' }))
    expect(() => new SettingsStore(dir).load()).toThrow(expect.objectContaining({ code: 'SettingsInvalid' }))
  })

  it('rejects thresholds out of order', () => {
    expect(() => new SettingsStore(dir).update({ warningThresholds: { watchPct: 80, warningPct: 70, criticalPct: 90 } })).toThrow(
      expect.objectContaining({ code: 'InvalidSettings' }),
    )
  })

  it('configures mainnet, adds and removes a custom network, selects networks', () => {
    const s = new SettingsStore(dir)
    s.saveNetwork({
      ...s.network('mainnet'),
      tradingUrl: 'https://api.example',
      wsUrl: 'wss://api.example/ws',
      earnUrl: 'https://pool.example',
      infoRatePerSec: 5,
    })
    s.saveNetwork({
      name: 'lab',
      kind: 'custom',
      network: 'lab',
      chainId: 31337,
      tradingUrl: 'http://10.0.0.2:8080',
      wsUrl: 'ws://10.0.0.2:8080/ws',
      earnUrl: 'http://10.0.0.2:8081',
      infoRatePerSec: 1,
      tradeRatePerSec: 1,
    })
    s.select('lab')
    const again = new SettingsStore(dir)
    expect(again.network('mainnet')).toMatchObject({ tradingUrl: 'https://api.example', infoRatePerSec: 5 })
    expect(again.selected().name).toBe('lab')
    expect(() => again.removeNetwork('lab')).toThrow(expect.objectContaining({ code: 'NetworkInUse' }))
    expect(() => again.removeNetwork('mainnet')).toThrow(expect.objectContaining({ code: 'BuiltinNetwork' }))
    again.select('sandbox')
    again.removeNetwork('lab')
    expect(new SettingsStore(dir).networks().map((n) => n.name)).toEqual(['sandbox', 'testnet', 'mainnet'])
    expect(() => again.network('lab')).toThrow(expect.objectContaining({ code: 'UnknownNetwork' }))
  })
})
