import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startSandbox, type SandboxHandle } from '../../../../sandbox/index'
import { devBot, devOwner } from '../../../../sandbox/scenario/dev-keys'
import { RateScheduler } from '../scheduler'
import { InfoClient } from './client'

let sb: SandboxHandle
let info: InfoClient

beforeAll(async () => {
  sb = await startSandbox({
    seed: true,
    blockMs: 20,
    botIntervalMs: 100,
    rateLimits: { infoPerSec: 1000, tradePerSec: 1000, signerPerSec: 1000 },
  })
  info = new InfoClient({ baseUrl: sb.tradingUrl, scheduler: new RateScheduler({ ratePerSec: 1000 }) })
})
afterAll(async () => {
  await sb?.stop()
})

const owner = devOwner(0).address
const credit = devOwner(3).address

describe('InfoClient against the sandbox', () => {
  it('reads every public /info type', async () => {
    const assets = await info.assets()
    expect(assets.assets.map((a) => a.symbol)).toContain('BTC')
    const q = await info.queryStatus()
    expect(q.query_height).toBeTypeOf('bigint')
    expect((await info.quoteAssets()).length).toBeGreaterThan(0)
    expect((await info.accountingWithdrawTokens()).length).toBeGreaterThan(0)
    expect(await info.accountingDepositContracts()).toBeInstanceOf(Array)
    expect((await info.multisigPolicy({ scope: 2 })).found).toBeTypeOf('boolean')
    await expect(info.multisigPolicy({ scope: 1 })).rejects.toMatchObject({ code: 'InvalidMultisigScope' })
    const markets = await info.markets()
    expect(markets.markets.length).toBeGreaterThan(0)
    const book = await info.l2Book({ market_id: markets.markets[0]!.market_id, depth: 5 })
    expect(book.found).toBe(true)
    expect((await info.l2Book({ market_id: 9999 })).found).toBe(false)
    expect((await info.markPrices()).length).toBeGreaterThan(0)
    expect((await info.oracleStatus()).oracle_status.status).toBe('available')
  })

  it('reads every account /info type', async () => {
    expect((await info.userBalances({ user: owner })).length).toBeGreaterThan(0)
    const st = await info.accountStatus({ user: owner })
    expect(st).toMatchObject({ found: true, status: 'active' })
    const ca = await info.spotCreditAccount({ user: credit })
    expect(ca.status).toBe('active')
    expect(ca.credit_usd_atoms).toBe(5_000_000_000_000n)
    expect((await info.spotCreditAccount({ user: owner })).found).toBe(false)
    expect((await info.spotCreditPositions({ user: credit })).length).toBe(2)
    const oo = await info.openOrders({ user: owner, market_id: -1 })
    expect(oo.orders.length).toBeGreaterThanOrEqual(2)
    const agents = await info.userAgents({ user: owner })
    expect(agents.agents).toHaveLength(4)
    expect(agents.agents[0]!.epoch).toBeTypeOf('bigint')
    expect(await info.withdraws({ user: owner })).toBeInstanceOf(Array)
    expect((await info.deposits({ user: owner })).deposits.length).toBeGreaterThan(0)
    const os = await info.orderStatus({ user: owner, market_id: 1, cloid: '0x000000000000000000000000005eed01' })
    expect(os).toMatchObject({ found: true, status: 'open' })
    const tx = await info.txStatusByCloid({ user: owner, cloid: '0x000000000000000000000000005eed01' })
    expect(tx.found).toBeTypeOf('boolean')
  })

  it('reads fills by height and by time, and an over-wide window is a typed in-band error', async () => {
    const bot = devBot(1).address
    await new Promise((r) => setTimeout(r, 600))
    const q = await info.queryStatus()
    const to = q.latest_retained_height!
    const from = q.earliest_retained_height!
    const byHeight = await info.userFills({ user: bot, from_height: from, to_height: to, limit: 500 })
    const byTime = await info.allFillsSince(bot, 0)
    expect(byTime.length).toBeGreaterThanOrEqual(byHeight.fills.length)
    await expect(info.userFills({ user: bot, from_height: 0n, to_height: to + 20_000n, limit: 10 })).rejects.toMatchObject({
      code: 'HistoryWindowExceeded',
      details: { inBand: true },
    })
    await expect(info.userFills({ user: bot, from_height: 10n, to_height: 5n, limit: 10 })).rejects.toMatchObject({
      code: 'InvalidFillsQuery',
    })
  })

  it('waits out injected 429s and still answers', async () => {
    sb.trading.faults.rateLimited = { count: 3, retryAfterMs: 20 }
    const r = await info.markets()
    expect(r.markets.length).toBeGreaterThan(0)
    sb.trading.faults.rateLimited = null
  })
})
