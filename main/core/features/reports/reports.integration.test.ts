import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { accepted, actionSender, type ActionSender } from '../../../../sandbox/scenario/signed-actions'
import { devOwner } from '../../../../sandbox/scenario/dev-keys'
import type { TradeAction } from '../../wire/actions'
import type { ExportFile, PnlReport, ReportCurrencyView, WriteOutcome } from '../../../contract/types'
import { startDeskOnSandbox, TEST_PASSPHRASE, type DeskOnSandbox } from '../../../testing/desk-on-sandbox'
import { FILL_COLUMNS, TRANSFER_COLUMNS } from './reports.service'

/** Parses the CSV the reports write (RFC 4180: quoted fields, doubled quotes, CRLF). */
function parseCsv(text: string): string[][] {
  const rows: string[][] = []
  let row: string[] = []
  let cell = ''
  let quoted = false
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!
    if (quoted) {
      if (c === '"' && text[i + 1] === '"') {
        cell += '"'
        i++
      } else if (c === '"') quoted = false
      else cell += c
    } else if (c === '"') quoted = true
    else if (c === ',') {
      row.push(cell)
      cell = ''
    } else if (c === '\r' && text[i + 1] === '\n') {
      row.push(cell)
      rows.push(row)
      row = []
      cell = ''
      i++
    } else cell += c
  }
  return rows
}
const records = (csv: string, columns: readonly string[]) => {
  const [head, ...body] = parseCsv(csv)
  expect(head).toEqual(columns)
  return body.map((r) => Object.fromEntries(columns.map((c, i) => [c, r[i]!])))
}

describe('reports computed in main from the sandbox exchange', () => {
  let d: DeskOnSandbox
  let stopConfirm: () => void
  let t0: number
  let t1: number
  const o0 = devOwner(0).address
  const o1 = devOwner(1).address
  let s0: ActionSender
  let s1: ActionSender
  const order = (side: 'bid' | 'ask', price: string, quantity: string, tif: 'gtc' | 'ioc'): TradeAction =>
    ({ type: 'order', market_id: '1', side, order_type: 'limit', tif, price, quantity }) as TradeAction
  const send = async (s: ActionSender, a: TradeAction) => {
    const res = await s.send(a)
    expect(accepted(res), JSON.stringify(res.body)).toBe(true)
  }

  beforeAll(async () => {
    d = await startDeskOnSandbox()
    await d.call('vault.create', { passphrase: TEST_PASSPHRASE })
    await d.call('accounts.importSandboxKeys')
    stopConfirm = d.autoConfirm()
    s0 = actionSender(d.sandbox.trading, devOwner(0).privateKey, 'reports-test-0')
    s1 = actionSender(d.sandbox.trading, devOwner(1).privateKey, 'reports-test-1')
    t0 = Date.now()
    // owner 1 rests each order (maker: 1 bp), owner 0 takes it with IOC (taker: 3.5 bp).
    await send(s1, order('bid', '64000', '0.1', 'gtc'))
    await send(s0, order('ask', '64000', '0.1', 'ioc')) // owner 1 buys 0.1 @ 64000
    await send(s1, order('ask', '65000', '0.05', 'gtc'))
    await send(s0, order('bid', '65000', '0.05', 'ioc')) // owner 1 sells 0.05 @ 65000
    await send(s1, order('ask', '63000', '0.03', 'gtc'))
    await send(s0, order('bid', '63000', '0.03', 'ioc')) // owner 1 sells 0.03 @ 63000
    t1 = Date.now() + 1
  })
  afterAll(async () => {
    stopConfirm?.()
    await d?.close()
  })

  it('fills CSV of one account over a range: fees in their asset, notional, USD value at the current mark', async () => {
    const f = await d.call<ExportFile>('reports.fillsCsv', { account: o1, fromMs: t0, toMs: t1, currency: 'USD' })
    expect(f.mime).toBe('text/csv')
    expect(f.filename).toMatch(/^fills-0x[0-9a-f]{40}-\d{4}-\d\d-\d\dT\d\d-\d\d-\d\dZ-.*\.csv$/)
    expect(f.content.endsWith('\r\n')).toBe(true)
    const rows = records(f.content, FILL_COLUMNS)
    expect(rows.map((r) => [r.side, r.role, r.price, r.quantity, r.notional, r.fee, r.fee_asset, r.market])).toEqual([
      // bid: fee in the base asset, 0.1 x 1 bp; ask: fee in the quote asset
      ['buy', 'maker', '64000', '0.1', '6400', '0.00001', 'BTC', 'BTC/USDC'],
      ['sell', 'maker', '65000', '0.05', '3250', '0.325', 'USDC', 'BTC/USDC'],
      ['sell', 'maker', '63000', '0.03', '1890', '0.189', 'USDC', 'BTC/USDC'],
    ])
    for (const r of rows) {
      expect(r.time_utc).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/)
      expect(r.account).toBe(o1)
      expect(r.value_currency).toBe('USD')
      expect(r.value_basis).toBe('current-mark')
      expect(r.value).toMatch(/^[0-9]+(\.[0-9]+)?$/)
    }
    // a range that ends before the trades is empty (header only); an empty range is refused
    const none = await d.call<ExportFile>('reports.fillsCsv', { account: o1, fromMs: t0 - 60_000, toMs: t0 })
    expect(records(none.content, FILL_COLUMNS)).toEqual([])
    await expect(d.call('reports.fillsCsv', { fromMs: t1, toMs: t0 })).rejects.toMatchObject({ code: 'InvalidRange' })
  })

  it('value column in a chosen asset at the export-time marks (stated per row); an unknown currency is a typed error', async () => {
    const cur = await d.call<ReportCurrencyView[]>('reports.currencies')
    expect(cur[0]).toEqual({ code: 'USD', markUsd: null, markTimeMs: null })
    const btc = cur.find((c) => c.code === 'BTC')!
    expect(btc.markUsd).toMatch(/^[0-9]+(\.[0-9]+)?$/)
    const rows = records(
      (await d.call<ExportFile>('reports.fillsCsv', { account: o1, fromMs: t0, toMs: t1, currency: 'btc' })).content,
      FILL_COLUMNS,
    )
    expect(rows).toHaveLength(3)
    for (const r of rows) {
      expect(r.value_currency).toBe('BTC')
      expect(r.value_basis).toBe('current-mark')
      // both marks named with their price and time: the quote asset's and the currency's
      expect(r.value_note).toMatch(
        /^converted at export-time marks: USDC [0-9.]+ USD at \d{4}-\d\d-\d\dT[0-9:.]+Z; BTC [0-9.]+ USD at \d{4}-/,
      )
    }
    // 6400 USDC in BTC at the marks, exact to the satoshi (floored): 6400 x mark(USDC) / mark(BTC)
    const scaleOf = (m: string) => (m.includes('.') ? m.split('.')[1]!.length : 0)
    const u = cur.find((c) => c.code === 'USDC')!.markUsd!
    const b = btc.markUsd!
    const atoms = (m: string) => BigInt(m.replace('.', '')) * 10n ** BigInt(8 - scaleOf(m))
    const expected = (6_400n * 10n ** 8n * atoms(u) * 10n ** 8n) / (10n ** 8n * atoms(b))
    expect(atoms(rows[0]!.value!)).toBe(expected)
    await expect(d.call('reports.fillsCsv', { account: o1, fromMs: t0, toMs: t1, currency: 'EUR' })).rejects.toMatchObject({
      code: 'InvalidCurrency',
    })
    await expect(d.call('reports.transfersCsv', { fromMs: t0, toMs: t1, currency: '=cmd' })).rejects.toMatchObject({
      code: 'InvalidArguments',
    })
  })

  it('fills CSV of all accounts: both sides, each with its own fee; no mark gives "unknown" with the reason', async () => {
    const all = records((await d.call<ExportFile>('reports.fillsCsv', { fromMs: t0, toMs: t1 })).content, FILL_COLUMNS)
    const o0rows = all.filter((r) => r.account === o0)
    expect(o0rows.map((r) => [r.side, r.role, r.fee, r.fee_asset])).toEqual([
      ['sell', 'taker', '2.24', 'USDC'], // 6400 x 3.5 bp
      ['buy', 'taker', '0.0000175', 'BTC'],
      ['buy', 'taker', '0.0000105', 'BTC'],
    ])
    expect(all.filter((r) => r.account === o1)).toHaveLength(3)
    d.sandbox.trading.setOracle({ status: 'unavailable', reason_code: 'ProviderError' })
    try {
      await new Promise((r) => setTimeout(r, 5_100)) // the desk's market-data cache keeps marks 5 s
      const rows = records((await d.call<ExportFile>('reports.fillsCsv', { account: o1, fromMs: t0, toMs: t1 })).content, FILL_COLUMNS)
      expect(rows.every((r) => r.value === 'unknown' && r.value_basis === 'unknown' && /oracle unavailable/.test(r.value_note ?? ''))).toBe(
        true,
      )
    } finally {
      d.sandbox.trading.setOracle({ status: 'available' })
    }
  })

  it('realised PnL per account and market, FIFO, equals the hand computation', async () => {
    const p = await d.call<PnlReport>('reports.pnl', { fromMs: t0, toMs: t1 })
    expect(p.method).toBe('FIFO')
    const r1 = p.rows.find((r) => r.account === o1 && r.marketId === '1')!
    // lot 0.1 @ 64000; sells 0.05 @ 65000 (+50) and 0.03 @ 63000 (-30): gross 20
    // quote fees 0.325 + 0.189 = 0.514; net 19.486; the buy's 0.00001 BTC fee is listed apart
    expect(r1).toMatchObject({
      market: 'BTC/USDC',
      quoteSymbol: 'USDC',
      fillsInRange: 3,
      closedQty: '0.08',
      realisedGross: '20',
      quoteFees: '0.514',
      realisedNet: '19.486',
      openQty: '0.02',
      openCost: '1280',
    })
    expect(r1.otherFees).toEqual([{ assetId: 3, symbol: 'BTC', amount: '0.00001' }])
    // owner 0 sold first (no lot in its fills: a short at 64000), then bought back 0.05 @ 65000 (-50) and 0.03 @ 63000 (+30)
    const r0 = p.rows.find((r) => r.account === o0 && r.marketId === '1')!
    expect(r0).toMatchObject({ realisedGross: '-20', quoteFees: '2.24', realisedNet: '-22.24', openQty: '-0.02' })
    expect(r0.otherFees).toEqual([{ assetId: 3, symbol: 'BTC', amount: '0.000028' }])
    expect(r0.notes.join(' ')).toMatch(/no cost basis/)

    // only the last sale inside the range: the lot bought before it keeps its cost
    const all = records((await d.call<ExportFile>('reports.fillsCsv', { account: o1, fromMs: t0, toMs: t1 })).content, FILL_COLUMNS)
    const last = Number(all[2]!.time_ms)
    expect(last).toBeGreaterThan(Number(all[1]!.time_ms))
    const late = await d.call<PnlReport>('reports.pnl', { account: o1, fromMs: last, toMs: t1 })
    expect(late.rows).toHaveLength(1)
    expect(late.rows[0]).toMatchObject({ fillsInRange: 1, realisedGross: '-30', quoteFees: '0.189', realisedNet: '-30.189' })
  })

  it('no formula reaches a spreadsheet: a label starting with = is exported as text', async () => {
    await d.call('accounts.update', { address: o1, label: '=HYPERLINK("http://evil","x")' })
    const f = await d.call<ExportFile>('reports.fillsCsv', { account: o1, fromMs: t0, toMs: t1 })
    expect(f.content).toContain(`"'=HYPERLINK(""http://evil"",""x"")"`)
    expect(records(f.content, FILL_COLUMNS)[0]!.account_label).toBe(`'=HYPERLINK("http://evil","x")`)
    await d.call('accounts.update', { address: o1, label: 'owner 1' })
  })

  it('transfers CSV: a faucet deposit from the exchange and a journaled transfer on both sides', async () => {
    // the sandbox stamps a faucet deposit with the latest block's time, which may be a block before now
    const from = Date.now() - 1_000
    d.sandbox.trading.deposit(devOwner(2).address as `0x${string}`, 1, 12_345_000_000n) // 123.45 USDC
    const out = await d.call<WriteOutcome>('transfer.submit', { from: o0, to: o1, assetId: 1, amount: '12.5' })
    expect(out.submission.outcome).toBe('success')
    await new Promise((r) => setTimeout(r, 300)) // the deposit lands in the next block
    const rows = records(
      (await d.call<ExportFile>('reports.transfersCsv', { fromMs: from, toMs: Date.now() + 1, currency: 'USD' })).content,
      TRANSFER_COLUMNS,
    )
    const dep = rows.find((r) => r.kind === 'deposit')!
    expect(dep).toMatchObject({
      account: devOwner(2).address,
      amount: '123.45',
      asset: 'USDC',
      source: 'exchange',
      status: 'done',
      value_basis: 'current-mark',
    })
    const outRow = rows.find((r) => r.kind === 'transfer-out')!
    const inRow = rows.find((r) => r.kind === 'transfer-in')!
    expect(outRow).toMatchObject({
      account: o0,
      counterparty: o1.toLowerCase(),
      amount: '12.5',
      asset: 'USDC',
      status: 'success',
      source: 'journal',
    })
    expect(inRow).toMatchObject({ account: o1, counterparty: o0, amount: '12.5', asset: 'USDC' })
    // one account's view has its side only
    const mine = records(
      (await d.call<ExportFile>('reports.transfersCsv', { account: o1, fromMs: from, toMs: Date.now() + 1 })).content,
      TRANSFER_COLUMNS,
    )
    expect(mine.map((r) => r.kind)).toEqual(['transfer-in'])
  })

  it('transfers CSV: a withdrawal on the exchange is a row with its fee (recorded, not deducted)', async () => {
    const from = Date.now() - 1_000
    const s2 = actionSender(d.sandbox.trading, devOwner(2).privateKey, 'reports-test-2')
    const cloid = `0x${'ab'.repeat(16)}`
    const res = await s2.send({
      type: 'withdraw',
      asset_id: '1',
      amount: '500000000',
      dst_chain_id: '1',
      dst_address: o0,
      withdraw_nonce: String(Date.now()),
      cloid,
    } as TradeAction)
    expect(accepted(res), JSON.stringify(res.body)).toBe(true)
    await new Promise((r) => setTimeout(r, 300))
    const rows = records(
      (await d.call<ExportFile>('reports.transfersCsv', { account: devOwner(2).address, fromMs: from, toMs: Date.now() + 1 })).content,
      TRANSFER_COLUMNS,
    )
    const w = rows.find((r) => r.kind === 'withdrawal')!
    expect(w.counterparty!.toLowerCase()).toBe(o0.toLowerCase())
    expect(w).toMatchObject({
      account: devOwner(2).address,
      amount: '5',
      asset: 'USDC',
      fee: '1',
      fee_asset: 'USDC',
      fee_note: 'recorded, not deducted',
      source: 'exchange',
      status: 'done',
    })
    expect(w.reference).toContain(`cloid ${cloid}`)
  })
})
