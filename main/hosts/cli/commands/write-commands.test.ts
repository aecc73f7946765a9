/** The write command groups (settle, repay, orders, earn, journal) in-process against a sandbox. */
import { mkdtempSync, rmSync, writeFileSync, readFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startSandbox, type SandboxHandle } from '../../../../sandbox/index'
import { devOwner } from '../../../../sandbox/scenario/dev-keys'
import { SettingsStore } from '../../../core/config/settings'
import { Vault, vaultPath } from '../../../core/vault'
import { discoverGroups } from '../discover'
import { capturedIo } from '../testing/captured-io'
import { runCli, type GroupRef } from '../router'

const PASS = 'correct horse battery staple 42'
let sb: SandboxHandle
let dir: string
let groups: GroupRef[]
const O0 = devOwner(0).address
const O3 = devOwner(3).address

async function desk(...args: string[]): Promise<{ code: number; out: string; err: string }> {
  const { io, out, err } = capturedIo()
  const code = await runCli([...args, '--data-dir', join(dir, 'data'), '--passphrase-file', join(dir, 'pass')], groups, io)
  return { code, out: out(), err: err() }
}

beforeAll(async () => {
  sb = await startSandbox({ seed: true, blockMs: 20, botIntervalMs: 0, rateLimits: false })
  dir = mkdtempSync(join(tmpdir(), 'desk-write-'))
  writeFileSync(join(dir, 'pass'), PASS + '\n')
  const data = join(dir, 'data')
  const settings = new SettingsStore(data)
  const s = settings.load()
  settings.save({
    ...s,
    networks: s.networks.map((n) =>
      n.name === 'sandbox'
        ? { ...n, tradingUrl: sb.tradingUrl, wsUrl: sb.wsUrl, earnUrl: sb.earnUrl, infoRatePerSec: 100, tradeRatePerSec: 100 }
        : n,
    ),
  })
  const v = await Vault.create({ path: vaultPath(data), passphrase: PASS, scrypt: { n: 16384, r: 8, p: 1 }, autoLockMs: null })
  await v.importPrivateKey(devOwner(0).privateKey, 'cash')
  await v.importPrivateKey(devOwner(3).privateKey, 'credit')
  v.lock()
  groups = await discoverGroups()
})

afterAll(async () => {
  await sb?.stop()
  rmSync(dir, { recursive: true, force: true })
})

describe('desk write commands', () => {
  it('settle preview and submit print JSON; the journal lists and exports the write', async () => {
    const p = await desk('settle', 'preview', O3, O0, 'BTC', '0.05', '--json')
    expect(p.err).toBe('')
    expect(JSON.parse(p.out)).toMatchObject({ kind: 'settle', amount: '0.05', creditPosition: { before: '0.3', after: '0.25' } })

    const s = await desk('settle', 'submit', O3, O0, 'BTC', '0.05', '--json', '--yes')
    // The confirmation gate showed exactly what is signed and its effect on both accounts.
    expect(s.err).toContain('== Settle 0.05 BTC ==')
    expect(s.err).toContain('0.3 -> 0.25 BTC')
    const r = JSON.parse(s.out) as { outcome: { state: string; cloid: string } }
    expect(r.outcome.state).toBe('accepted')
    expect(sb.trading.groundTruth().filter((t) => t.cloid === r.outcome.cloid)).toHaveLength(1)

    const l = await desk('journal', 'list', '--type', 'settle', '--json')
    const rows = JSON.parse(l.out) as { key: string; state: string; body?: string }[]
    expect(rows).toHaveLength(1)
    expect(rows[0]).toMatchObject({ key: r.outcome.cloid, state: 'accepted' })
    expect(rows[0]!.body).toBeUndefined()

    const out = join(dir, 'export.csv')
    expect((await desk('journal', 'export', '--format', 'csv', '--out', out)).code).toBe(0)
    expect(readFileSync(out, 'utf8')).toContain(r.outcome.cloid)
    const rec = await desk('journal', 'reconcile', '--passes', '1', '--json')
    expect(JSON.parse(rec.out)).toEqual({ unresolved: [] })
  })

  it('refuses an invalid repay with a typed error and exit code 1, signing nothing', async () => {
    const r = await desk('repay', 'preview', O0, O3, 'USDC', '0.000000001')
    expect(r.code).toBe(1)
    expect(r.err).toMatch(/\[ExcessPrecision\]/)
    const ok = await desk('repay', 'preview', O0, O3, 'USDC', '10', '--json')
    expect(JSON.parse(ok.out)).toMatchObject({ kind: 'repay', creditPosition: { before: '-12000', after: '-11990' } })
  })

  it('orders: list, check and emergency cancel; earn status', async () => {
    const list = await desk('orders', 'list', O0, '--json')
    const accounts = JSON.parse(list.out) as { orders: unknown[] }[]
    expect(accounts[0]!.orders.length).toBeGreaterThan(0)
    const chk = await desk('orders', 'check', O0, '1', 'buy', '0.01', '60000.5', '--json')
    expect(chk.err).toBe('')
    // Readable, by the market's name as people write it (no raw JSON): side, size, price, market, value.
    const text = await desk('orders', 'check', O0, 'BTC/USDC', 'buy', '0.01', '60000.5')
    expect(text.code).toBe(0)
    expect(text.out).toMatch(/^ok: buy 0\.01 BTC at 60,000\.5 USDC on BTC\/USDC, limit gtc \(value 600\.005 USDC\); nothing was signed/)
    expect(text.out).not.toContain('{')
    const listed = await desk('orders', 'list', O0)
    expect(listed.out).toMatch(/\/USDC\s+(buy|sell)\s+[\d,.]+ @ [\d,.]+\s+oid/)
    const em = await desk('orders', 'emergency-cancel', O0, '--json', '--yes')
    expect(em.code).toBe(0)
    expect(JSON.parse(em.out)).toMatchObject({ remaining: [], failures: [] })
    const earn = await desk('earn', 'status', O0, '--json')
    expect(JSON.parse(earn.out)).toMatchObject({ paused: false })
  })

  it('earn: cancel the queued withdrawal, create a new one and cancel it, each with its journal entry', async () => {
    const st = JSON.parse((await desk('earn', 'status', O0, '--json')).out) as {
      withdrawals: { operationId: string; symbol: string; cancelable: boolean }[]
    }
    const queued = st.withdrawals.find((w) => w.cancelable)
    expect(queued).toBeDefined()
    const first = await desk('earn', 'cancel', O0, queued!.operationId, '--json', '--yes')
    expect(first.err).toContain('Cancel an earn withdrawal')
    expect(JSON.parse(first.out)).toMatchObject({ operationId: queued!.operationId, state: 'accepted' })

    const c = await desk('earn', 'create', O0, queued!.symbol, '1', 'scheduled', '--json', '--yes')
    expect(c.err).toContain(`Withdraw 1 ${queued!.symbol} from earn`)
    const created = JSON.parse(c.out) as { operationId: string; journalId: number; state: string; preview: { fee: string; net: string } }
    expect(created).toMatchObject({ state: 'accepted', preview: { fee: '0', net: '1' } })
    expect(created.operationId).toMatch(/^withdraw:0x[0-9a-f]{40}:[0-9]+$/)
    const x = await desk('earn', 'cancel', O0, created.operationId, '--json', '--yes')
    expect(x.code).toBe(0)
    const cancelled = JSON.parse(x.out) as { operationId: string; journalId: number; state: string }
    expect(cancelled).toMatchObject({ operationId: created.operationId, state: 'accepted' })
    expect(cancelled.journalId).toBeGreaterThan(created.journalId)
  })

  it('agents approve, rotate and revoke a slot, with the key kept in the vault and retired after', async () => {
    const a = await desk('agents', 'approve', O0, '3', '--json', '--yes')
    expect(a.err).toContain('Approve an API key in slot 3')
    const approved = JSON.parse(a.out) as { slot: number; agent: string; epoch: string; outcome: { state: string } }
    expect(approved).toMatchObject({ slot: 3, outcome: { state: 'accepted' } })
    expect(approved.epoch).toMatch(/^[0-9]+$/)

    const l = JSON.parse((await desk('agents', 'list', O0, '--json')).out) as {
      slots: { slot: number; agent: string | null; keyInVault: boolean }[]
    }
    expect(l.slots.find((s) => s.slot === 3)).toMatchObject({ agent: approved.agent, keyInVault: true })

    const r = await desk('agents', 'rotate', O0, '3', '--json', '--yes')
    const rotated = JSON.parse(r.out) as { to: { slot: number; agent: string }; inPlace: boolean; revoke: { state: string } | null }
    expect(rotated.to.agent).not.toBe(approved.agent)
    if (!rotated.inPlace) expect(rotated.revoke?.state).toBe('accepted')

    const v = await desk('agents', 'revoke', O0, String(rotated.to.slot), '--json', '--yes')
    expect(JSON.parse(v.out)).toMatchObject({ slot: rotated.to.slot, retired: rotated.to.agent })
    const after = JSON.parse((await desk('agents', 'list', O0, '--json')).out) as { slots: { slot: number; agent: string | null }[] }
    expect(after.slots.find((s) => s.slot === rotated.to.slot)?.agent).toBeNull()
    expect((await desk('agents', 'approve', O0, '7')).code).toBe(2)
  })

  it('guardrails: refusals exit non-zero with their code in text and --json, and nothing reaches the exchange', async () => {
    const executed = sb.trading.groundTruth().length
    // A mistyped checksum never enters the address book.
    const bad = await desk('addresses', 'add', 'cold', '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAeD', '--chain', '1', '--json')
    expect(bad.code).toBe(1)
    expect(JSON.parse(bad.out)).toMatchObject({ error: { code: 'InvalidAddressChecksum' } })
    // Withdrawals go only to address-book entries.
    const w = await desk(
      'orders',
      'withdraw',
      O0,
      'USDC',
      '10',
      '--dst-chain',
      '1',
      '--dst-address',
      '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed',
      '--json',
      '--yes',
    )
    expect(w.code).toBe(1)
    expect(JSON.parse(w.out)).toMatchObject({ error: { code: 'DestinationNotAllowed' } })
    expect(w.err).toMatch(/\[DestinationNotAllowed\]/)
    // A new entry cools off before use.
    expect((await desk('addresses', 'add', 'cold', '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed', '--chain', '1', '--json')).code).toBe(0)
    const cooling = await desk(
      'orders',
      'withdraw',
      O0,
      'USDC',
      '10',
      '--dst-chain',
      '1',
      '--dst-address',
      '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed',
      '--json',
      '--yes',
    )
    expect(JSON.parse(cooling.out)).toMatchObject({ error: { code: 'DestinationCoolingOff' } })
    // Tightening applies at once, without the passphrase; a transfer over it is refused with the limit.
    expect((await desk('policy', 'set', 'transfer-limit-usd', '1', '--json')).code).toBe(0)
    const t = await desk('orders', 'transfer', O0, O3, 'USDC', '100', '--json', '--yes')
    expect(t.code).toBe(1)
    expect(JSON.parse(t.out)).toMatchObject({ error: { code: 'LimitExceeded' } })
    const show = JSON.parse((await desk('policy', 'show', '--json')).out) as { rules: { name: string; value: string | null }[] }
    expect(show.rules.find((r) => r.name === 'transfer-limit-usd')?.value).toBe('1')
    // A limit buy far through the market needs the knowing override.
    const far = await desk('orders', 'place', O0, '1', 'buy', '0.001', '999999', '--json', '--yes')
    expect(far.code).toBe(1)
    expect(JSON.parse(far.out)).toMatchObject({ error: { code: 'PriceOutsideBand' } })
    // Halt: every write refused until resume (passphrase).
    const h = await desk('halt', '--json', '--yes')
    expect(h.code).toBe(0)
    expect((JSON.parse(h.out) as { accounts: { verifiedZero: boolean }[] }).accounts.every((a) => a.verifiedZero)).toBe(true)
    const halted = await desk('settle', 'submit', O3, O0, 'BTC', '0.01', '--json', '--yes')
    expect(JSON.parse(halted.out)).toMatchObject({ error: { code: 'WritesHalted' } })
    expect((await desk('resume', '--json')).code).toBe(0)
    expect(sb.trading.groundTruth().length).toBe(executed)
  })

  it('names accounts by label, lists markets and assets, exports fills and transfers as CSV, reports PnL and alerts', async () => {
    // "credit" and "cash" are the vault's labels for O3 and O0.
    const byLabel = await desk('settle', 'preview', 'credit', 'Cash', 'BTC', '0.01', '--json')
    expect(byLabel.err).toBe('')
    expect(JSON.parse(byLabel.out)).toMatchObject({ kind: 'settle', from: O3.toLowerCase(), to: O0.toLowerCase() })
    const unknown = await desk('settle', 'preview', 'nobody', 'cash', 'BTC', '0.01', '--json')
    expect(unknown.code).toBe(1)
    expect(JSON.parse(unknown.out)).toMatchObject({ error: { code: 'UnknownAccount' } })

    const markets = JSON.parse((await desk('markets', '--json')).out) as { marketId: string; symbol: string }[]
    expect(markets.length).toBeGreaterThan(0)
    const assets = await desk('assets')
    expect(assets.out).toMatch(/USDC\s+\d+\s+\d/)

    const yesterday = new Date(Date.now() - 86_400_000).toISOString()
    expect(JSON.parse((await desk('export', 'fills', '--from', '2020-01-01', '--json')).out)).toMatchObject({
      error: { code: 'InvalidRange' },
    })
    const fills = await desk('export', 'fills', '--from', yesterday)
    expect(fills.err).toBe('')
    expect(fills.code).toBe(0)
    expect(fills.out.split('\n')[0]).toMatch(/^time_utc,time_ms,account,account_label,market_id/)
    const transfers = await desk('export', 'transfers', '--from', yesterday)
    expect(transfers.out.split('\n')[0]).toMatch(/^time_utc,time_ms,account/)
    // An account by its label, the value column in another asset at its live mark; an unknown currency is refused by main.
    const inBtc = await desk('export', 'fills', '--from', yesterday, '--account', 'cash', '--currency', 'BTC')
    expect(inBtc.code).toBe(0)
    expect(inBtc.err).toBe('')
    expect(inBtc.out.split('\n')[0]).toMatch(/value_currency/)
    for (const row of inBtc.out.trim().split('\n').slice(1)) expect(row).toContain(',BTC,')
    expect(JSON.parse((await desk('export', 'fills', '--currency', 'DOGE', '--json')).out)).toMatchObject({
      error: { code: 'InvalidCurrency' },
    })
    const pnl = JSON.parse((await desk('pnl', '--json')).out) as { method: string }
    expect(pnl.method).toBe('FIFO')
    expect((await desk('alerts', '--json')).code).toBe(0)
  })
})
