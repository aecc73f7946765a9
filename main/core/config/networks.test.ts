import { describe, expect, it, vi } from 'vitest'
import {
  builtinNetworks,
  connectNetwork,
  networkView,
  requireConfigured,
  sandboxListenOptions,
  sandboxNetwork,
  strictLimitsFor,
  validateNetwork,
} from './networks'

describe('networks', () => {
  it('ships the sandbox ready and testnet/mainnet not configured, with the spec chain ids', () => {
    const [sandbox, testnet, mainnet] = builtinNetworks()
    expect(sandbox).toMatchObject({ name: 'sandbox', chainId: 424242, infoRatePerSec: 1, tradeRatePerSec: 1 })
    expect(testnet).toMatchObject({ name: 'testnet', network: 'testnet', chainId: 969696, tradingUrl: null })
    expect(mainnet).toMatchObject({ name: 'mainnet', network: 'mainnet', chainId: 696969, wsUrl: null })
    expect(networkView(mainnet!)).toMatchObject({ configured: false, tradingUrl: '' })
    expect(networkView(sandbox!).configured).toBe(true)
  })

  it('a network without URLs is a NetworkNotConfigured error naming what is missing', () => {
    const mainnet = builtinNetworks()[2]!
    expect(() => requireConfigured(mainnet)).toThrow(
      expect.objectContaining({ code: 'NetworkNotConfigured', details: { network: 'mainnet', missing: 'tradingUrl,wsUrl,earnUrl' } }),
    )
  })

  it('keeps the built-in chain ids and reserved names', () => {
    const testnet = { ...builtinNetworks()[1]!, tradingUrl: 'https://t.example', wsUrl: 'wss://t.example/ws', earnUrl: 'https://e.example' }
    expect(validateNetwork(testnet).tradingUrl).toBe('https://t.example')
    expect(() => validateNetwork({ ...testnet, chainId: 696969 })).toThrow(expect.objectContaining({ code: 'InvalidNetwork' }))
    expect(() => validateNetwork({ ...testnet, kind: 'custom' })).toThrow(expect.objectContaining({ code: 'InvalidNetwork' }))
    expect(() => validateNetwork({ ...testnet, name: 'lab', kind: 'custom', tradingUrl: 'ftp://x' })).toThrow(
      expect.objectContaining({ code: 'InvalidNetwork', details: { path: 'tradingUrl' } }),
    )
    expect(() => validateNetwork({ ...testnet, name: 'lab', kind: 'custom', infoRatePerSec: 0 })).toThrow(
      expect.objectContaining({ code: 'InvalidNetwork' }),
    )
    expect(validateNetwork({ ...testnet, name: 'lab', kind: 'custom', chainId: 7, infoRatePerSec: 20 }).infoRatePerSec).toBe(20)
  })

  it('starts the sandbox through the hook and adopts the URLs it bound', async () => {
    const stop = vi.fn(async () => {})
    const c = await connectNetwork(sandboxNetwork(), {
      startSandbox: async () => ({
        tradingUrl: 'http://127.0.0.1:5001',
        wsUrl: 'ws://127.0.0.1:5001/ws',
        earnUrl: 'http://127.0.0.1:5002',
        chainId: 424242,
        stop,
      }),
    })
    expect(c.network.tradingUrl).toBe('http://127.0.0.1:5001')
    expect(c.startedSandbox).toBe(true)
    await c.close()
    expect(stop).toHaveBeenCalledOnce()
  })

  it('refuses a sandbox that signs with another chain id, and stops it', async () => {
    const stop = vi.fn(async () => {})
    await expect(
      connectNetwork(sandboxNetwork(), {
        startSandbox: async () => ({ tradingUrl: 'http://a', wsUrl: 'ws://a', earnUrl: 'http://b', chainId: 1, stop }),
      }),
    ).rejects.toMatchObject({ code: 'NetworkChainMismatch' })
    expect(stop).toHaveBeenCalledOnce()
  })

  it('without a starter, the sandbox is reached at its configured URLs', async () => {
    const c = await connectNetwork(sandboxNetwork({ trading: 6000, earn: 6001 }))
    expect(c.network).toMatchObject({
      tradingUrl: 'http://127.0.0.1:6000',
      wsUrl: 'ws://127.0.0.1:6000/ws',
      earnUrl: 'http://127.0.0.1:6001',
    })
    expect(c.startedSandbox).toBe(false)
  })

  it('derives the sandbox listen ports from its configured URLs, loopback only', () => {
    expect(sandboxListenOptions(sandboxNetwork())).toEqual({ port: 47100 })
    expect(sandboxListenOptions(sandboxNetwork({ trading: 6000, earn: 6001 }))).toEqual({ port: 6000, earnPort: 6001 })
    expect(() => sandboxListenOptions({ ...sandboxNetwork(), tradingUrl: 'http://10.0.0.1:80' })).toThrow(
      expect.objectContaining({ code: 'InvalidNetwork' }),
    )
  })

  it('strict limits: always on real networks, on the sandbox unless the operator turned them off', () => {
    for (const n of builtinNetworks()) expect(strictLimitsFor(n), n.name).toBe(true)
    for (const kind of ['testnet', 'mainnet', 'custom'] as const) expect(strictLimitsFor({ kind, strictLimits: false }), kind).toBe(true)
    expect(strictLimitsFor({ ...sandboxNetwork(), strictLimits: false })).toBe(false)
    expect(strictLimitsFor({ ...sandboxNetwork(), strictLimits: true })).toBe(true)
    // The setting is kept by validation, and typed.
    expect(validateNetwork({ ...sandboxNetwork(), strictLimits: false }).strictLimits).toBe(false)
    expect(() => validateNetwork({ ...sandboxNetwork(), strictLimits: 'no' })).toThrow(expect.objectContaining({ code: 'InvalidNetwork' }))
  })

  it('a real network refuses strict limits off (typed), may say on; the view carries the mode in force', () => {
    for (const n of builtinNetworks().filter((b) => b.kind !== 'sandbox')) {
      expect(() => validateNetwork({ ...n, strictLimits: false }), n.name).toThrow(
        expect.objectContaining({ code: 'InvalidNetwork', details: { path: 'strictLimits' } }),
      )
      expect(validateNetwork({ ...n, strictLimits: true }).strictLimits).toBe(true)
    }
    const custom = { ...builtinNetworks()[1]!, name: 'staging', kind: 'custom' as const, chainId: 77 }
    expect(() => validateNetwork({ ...custom, strictLimits: false })).toThrow(/only the sandbox can turn them off/)
    expect(networkView(sandboxNetwork()).strictLimits).toBe(true)
    expect(networkView({ ...sandboxNetwork(), strictLimits: false }).strictLimits).toBe(false)
    expect(networkView(builtinNetworks()[2]!).strictLimits).toBe(true)
  })
})
