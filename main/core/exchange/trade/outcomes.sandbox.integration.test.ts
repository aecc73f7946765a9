import { privateKeyToAccount } from 'viem/accounts'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startSandbox, type SandboxHandle } from '../../../../sandbox/index'
import { devOwner } from '../../../../sandbox/scenario/dev-keys'
import { type Journal } from '../../journal'
import { openTempJournal } from '../../journal/testing/temp-journal'
import { CHAIN_IDS } from '../../wire/chains'
import { InfoClient } from '../info/client'
import { RateScheduler } from '../scheduler'
import { infoTradeReads, queryHeightFloor } from './info-reads'
import { TradeReconciler } from './reconciler'
import { localTradeSigner } from './testing/local-signer'
import { TradeSubmitter } from './submitter'

/**
 * Outcomes against the sandbox: a lost answer is reconciled by reading the service, with the
 * height journaled before sending proving the lookback window; an over-settle that fails at
 * execution is never shown as accepted.
 */
let sb: SandboxHandle
let journal: Journal
let info: InfoClient
const credit = privateKeyToAccount(devOwner(3).privateKey as `0x${string}`) // credit: long 0.3 BTC (asset 3)
const cash = privateKeyToAccount(devOwner(0).privateKey as `0x${string}`)
const signer = localTradeSigner(() => credit)
const who = { account: credit.address, signer: { owner: credit.address, role: 'owner' as const } }

function submitter(): TradeSubmitter {
  return new TradeSubmitter({
    network: 'sandbox',
    tradeUrl: `${sb.tradingUrl}/trade`,
    chainId: CHAIN_IDS.sandbox,
    journal,
    signer,
    scheduler: new RateScheduler({ ratePerSec: 1000 }),
    expiresInMs: 1500,
    heightFloor: queryHeightFloor(info),
  })
}

beforeAll(async () => {
  sb = await startSandbox({ seed: true, blockMs: 20, botIntervalMs: 0, rateLimits: false, tradeWaitBudgetMs: 150 })
  journal = openTempJournal()
  info = new InfoClient({ baseUrl: sb.tradingUrl, scheduler: new RateScheduler({ ratePerSec: 1000 }) })
})

afterAll(async () => {
  await journal?.close()
  await sb?.stop()
})

const settle = (amount: string) => ({ type: 'settle', asset_id: '3', amount, cash_account: cash.address }) as never

describe('outcomes against the sandbox', () => {
  it('a settle whose 504 answer was lost after it executed is reconciled as executed; one that did not run, as not executed inside the window', async () => {
    const sub = submitter()
    const rec = new TradeReconciler({ network: 'sandbox', journal, reads: infoTradeReads(info), minAgeMs: 0, expiryGraceMs: 300 })
    sb.trading.faults.nodeUnreachable504 = { count: 1, executed: true }
    await expect(sub.submit({ ...who, action: settle('1000000'), summary: 'lost, executed' })).rejects.toMatchObject({
      code: 'TradeOutcomeUnknown',
    })
    sb.trading.faults.nodeUnreachable504 = { count: 1, executed: false }
    await expect(sub.submit({ ...who, action: settle('1000000'), summary: 'lost, not executed' })).rejects.toMatchObject({
      code: 'TradeOutcomeUnknown',
    })
    const [ran, lost] = journal.list({ order: 'oldest' })
    expect(ran!.submitHeight).toMatch(/^[0-9]+$/)
    await rec.reconcileOnce()
    expect(journal.get(ran!.id)).toMatchObject({ state: 'reconciled', finalStatus: 'success' })
    expect(journal.get(lost!.id)!.state).toBe('unknown') // may still execute: wait for expiry
    await new Promise((r) => setTimeout(r, 2000))
    await rec.reconcileOnce()
    expect(journal.get(lost!.id)).toMatchObject({ state: 'reconciled', finalStatus: 'notexecuted' })
    const truth = sb.trading.groundTruth()
    expect(truth.filter((t) => t.cloid === ran!.key)).toHaveLength(1)
    expect(truth.filter((t) => t.cloid === lost!.key)).toHaveLength(0)
  })

  it('of two settles that together over-settle, the one that fails is never shown as accepted', async () => {
    const a = submitter()
    const b = submitter()
    // 0.3 BTC long minus what the first test moved: two settles of 0.2 cannot both execute.
    const results = await Promise.allSettled([
      a.submit({ ...who, action: settle('20000000'), summary: 'first' }),
      b.submit({ ...who, action: settle('20000000'), summary: 'second' }),
    ])
    const ok = results.filter((r) => r.status === 'fulfilled')
    const bad = results.filter((r): r is PromiseRejectedResult => r.status === 'rejected')
    expect(ok).toHaveLength(1)
    expect(bad).toHaveLength(1)
    expect(['TradeFailed', 'TradeRejected']).toContain(bad[0]!.reason.code)
    const entries = journal.list({ order: 'oldest' }).slice(-2)
    const failed = entries.find((e) => e.state !== 'accepted')!
    expect(['failed', 'rejected']).toContain(failed.state)
    expect(failed.code?.toLowerCase()).toBe('invalidsettle')
    if (failed.state === 'failed') expect(failed.advice).toMatch(/over-settle/)
  })
})
