/** `desk networks`, `desk status` and `desk agents` in-process against a sandbox on a temporary data directory. */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startSandbox, type SandboxHandle } from '../../../../sandbox/index'
import { devAgent, devOwner } from '../../../../sandbox/scenario/dev-keys'
import { capturedIo } from '../testing/captured-io'
import { runCli } from '../router'
import agents from './agents'
import networks from './networks'
import status from './status'

let sb: SandboxHandle
let dataDir: string

beforeAll(async () => {
  sb = await startSandbox({
    seed: true,
    blockMs: 20,
    botIntervalMs: 0,
    rateLimits: { infoPerSec: 1000, tradePerSec: 1000, signerPerSec: 1000 },
  })
  dataDir = mkdtempSync(join(tmpdir(), 'desk-read-cli-'))
})
afterAll(async () => {
  await sb?.stop()
  rmSync(dataDir, { recursive: true, force: true })
})

async function desk(...args: string[]): Promise<{ code: number; out: string; err: string }> {
  const { io, out, err } = capturedIo()
  const code = await runCli([...args, '--data-dir', dataDir], [networks, status, agents], io)
  return { code, out: out(), err: err() }
}

describe('desk networks / status / agents', () => {
  it('lists networks, with mainnet and testnet not configured', async () => {
    const r = await desk('networks', 'list', '--json')
    expect(r.code).toBe(0)
    const j = JSON.parse(r.out) as { selected: string; networks: { name: string; configured: boolean; chainId: number }[] }
    expect(j.selected).toBe('sandbox')
    expect(j.networks.map((n) => [n.name, n.configured, n.chainId])).toEqual([
      ['sandbox', true, 424242],
      ['testnet', false, 969696],
      ['mainnet', false, 696969],
    ])
    const text = await desk('networks', 'list')
    expect(text.out).toMatch(/mainnet .*\(not configured\)/)
  })

  it('edits networks and refuses bad input with typed errors', async () => {
    const set = await desk(
      'networks',
      'set',
      'sandbox',
      '--trading-url',
      sb.tradingUrl,
      '--ws-url',
      sb.wsUrl,
      '--earn-url',
      sb.earnUrl,
      '--info-rate',
      '50',
      '--json',
    )
    expect(set.code).toBe(0)
    expect(JSON.parse(set.out)).toMatchObject({ name: 'sandbox', infoRatePerSec: 50, configured: true })
    const bad = await desk('networks', 'set', 'mainnet', '--chain-id', '1')
    expect(bad.code).toBe(1)
    expect(bad.err).toMatch(/\[InvalidNetwork\]/)
    const noChain = await desk('networks', 'set', 'lab', '--trading-url', 'http://10.1.1.1')
    expect(noChain.code).toBe(2)
    const lab = await desk('networks', 'set', 'lab', '--chain-id', '31337', '--trading-url', 'http://10.1.1.1:9', '--json')
    expect(JSON.parse(lab.out)).toMatchObject({ name: 'lab', kind: 'custom', configured: false })
    expect((await desk('networks', 'remove', 'lab')).code).toBe(0)
  })

  it('turns strict limits off and on for the sandbox; a real network refuses off (typed); bad values are usage errors', async () => {
    const off = await desk('networks', 'set', 'sandbox', '--strict-limits', 'off', '--json')
    expect(off.err).toBe('')
    expect(JSON.parse(off.out)).toMatchObject({ name: 'sandbox', strictLimits: false, infoRatePerSec: 50 })
    expect((await desk('networks', 'list')).out).toMatch(/sandbox .*strict limits off/)
    const real = await desk('networks', 'set', 'mainnet', '--strict-limits', 'off')
    expect(real.code).toBe(1)
    expect(real.err).toMatch(/only the sandbox can turn them off.*\[InvalidNetwork\]/)
    expect((await desk('networks', 'set', 'sandbox', '--strict-limits', 'maybe')).code).toBe(2)
    const on = await desk('networks', 'set', 'sandbox', '--strict-limits', 'on', '--json')
    expect(JSON.parse(on.out)).toMatchObject({ name: 'sandbox', strictLimits: true })
  })

  it('status on an unconfigured network is a clear error, not a crash', async () => {
    const r = await desk('status', 'show', '--network', 'mainnet', '--address', devOwner(0).address)
    expect(r.code).toBe(1)
    expect(r.err).toMatch(/mainnet.*\[NetworkNotConfigured\]/)
  })

  it('reads the network the app selected (one setting every host reads), not a default of its own', async () => {
    const custom = await desk(
      'networks',
      'set',
      'staging',
      '--kind',
      'custom',
      '--chain-id',
      '777',
      '--trading-url',
      'https://staging.invalid',
      '--ws-url',
      'wss://staging.invalid/ws',
      '--earn-url',
      'https://earn.staging.invalid',
    )
    expect(custom.err).toBe('')
    expect((await desk('networks', 'select', 'staging')).code).toBe(0)
    const r = await desk('status', 'show', '--address', devOwner(0).address)
    expect(r.code).toBe(1)
    expect(r.err).toMatch(/staging/)
    expect((await desk('networks', 'select', 'sandbox')).code).toBe(0)
  })

  it('status show and credit read the sandbox', async () => {
    const r = await desk('status', 'show', '--address', `${devOwner(0).address},${devOwner(3).address}`, '--json')
    expect(r.err).toBe('')
    const j = JSON.parse(r.out) as {
      network: string
      rows: { account: { kind: string }; available: { symbol: string; total: string }[]; credit: { creditUsd: string } | null }[]
    }
    expect(j.network).toBe('sandbox')
    expect(j.rows[0]!.account.kind).toBe('balance')
    expect(j.rows[0]!.available.find((b) => b.symbol === 'BTC')!.total).toBe('2.5')
    expect(j.rows[1]!.credit!.creditUsd).toBe('50000')
    const text = await desk('status', 'show', '--address', devOwner(0).address)
    expect(text.out).toMatch(/BTC\s+total 2\.5 BTC/)
    const c = await desk('status', 'credit', devOwner(4).address)
    expect(c.code).toBe(0)
    expect(c.out).toMatch(/credit line \$10,000\.00/)
    const notCredit = await desk('status', 'credit', devOwner(0).address)
    expect(notCredit.code).toBe(1)
    expect(notCredit.err).toBe(`desk: ${devOwner(0).address.toLowerCase()} has no credit line on sandbox [NotCreditAccount]\n`)
  })

  it('agents list shows the 4 slots', async () => {
    const r = await desk('agents', 'list', devOwner(0).address, '--json')
    const j = JSON.parse(r.out) as { slots: { slot: number; agent: string | null; keyInVault: boolean }[] }
    expect(j.slots.map((s) => s.agent)).toEqual([devAgent(0).address, null, devAgent(1).address, null])
    expect(j.slots.every((s) => !s.keyInVault)).toBe(true) // no vault in this data directory
    const bad = await desk('agents', 'list', 'nobody')
    expect(bad.err).toMatch(/no account is labelled "nobody".*\[UnknownAccount\]/)
  })
})
