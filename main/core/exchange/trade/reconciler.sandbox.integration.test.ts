import { privateKeyToAccount } from 'viem/accounts'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startSandbox, type SandboxHandle } from '../../../../sandbox/index'
import { devOwner } from '../../../../sandbox/scenario/dev-keys'
import { type Journal } from '../../journal'
import { openTempJournal } from '../../journal/testing/temp-journal'
import type { TradeAction } from '../../wire'
import { CHAIN_IDS } from '../../wire/chains'
import { InfoClient } from '../info/client'
import { RateScheduler } from '../scheduler'
import { infoTradeReads, queryHeightFloor } from './info-reads'
import { TradeReconciler } from './reconciler'
import { CANCEL_NO_EFFECT } from './reconcile-evidence'
import { judge } from '../../../testing/chaos-harness'
import { localTradeSigner } from './testing/local-signer'
import { TradeSubmitter } from './submitter'

/**
 * A cancel whose answer was lost (504): once its envelope can no longer execute, the exchange's
 * state settles it. Target still open: the cancel did not execute (final `notexecuted`, never
 * `unresolved` for ever). Target cancelled: it did. Before expiry it waits.
 */
let sb: SandboxHandle
let journal: Journal
let info: InfoClient
const owner = privateKeyToAccount(devOwner(0).privateKey as `0x${string}`)
const who = { account: owner.address, signer: { owner: owner.address, role: 'owner' as const } }
let sub: TradeSubmitter
let rec: TradeReconciler

beforeAll(async () => {
  sb = await startSandbox({ seed: true, blockMs: 20, botIntervalMs: 0, rateLimits: false, tradeWaitBudgetMs: 150 })
  journal = openTempJournal()
  info = new InfoClient({ baseUrl: sb.tradingUrl, scheduler: new RateScheduler({ ratePerSec: 1000 }) })
  sub = new TradeSubmitter({
    network: 'sandbox',
    tradeUrl: `${sb.tradingUrl}/trade`,
    chainId: CHAIN_IDS.sandbox,
    journal,
    signer: localTradeSigner(() => owner),
    scheduler: new RateScheduler({ ratePerSec: 1000 }),
    expiresInMs: 1500,
    heightFloor: queryHeightFloor(info),
  })
  rec = new TradeReconciler({ network: 'sandbox', journal, reads: infoTradeReads(info), minAgeMs: 0, expiryGraceMs: 300 })
})

afterAll(async () => {
  await journal?.close()
  await sb?.stop()
})

/** Rests a bid (by default far below the book); returns its oid and cloid. */
async function restingBid(price = '40000'): Promise<{ oid: string; cloid: string }> {
  const r = await sub.submit({
    ...who,
    action: {
      type: 'order',
      market_id: '1',
      side: 'bid',
      order_type: 'limit',
      tif: 'gtc',
      price,
      quantity: '0.001',
    } as TradeAction,
    summary: 'resting bid',
  })
  const leaf = r.leaves[0]!
  expect(leaf.kind).toBe('open')
  return { oid: String((leaf as { oid: string | bigint }).oid), cloid: r.key }
}

async function lostCancel(target: { oid: string } | { cloid: string }, executed: boolean) {
  sb.trading.faults.nodeUnreachable504 = { count: 1, executed }
  const action = { type: 'cancel', market_id: '1', ...target } as TradeAction
  await expect(sub.submit({ ...who, action, summary: `lost cancel ${JSON.stringify(target)}` })).rejects.toMatchObject({
    code: 'TradeOutcomeUnknown',
  })
  sb.trading.faults.nodeUnreachable504 = null
  return journal.list({ order: 'newest', limit: 1 })[0]!
}

const statusOf = async (oid: string) => (await infoTradeReads(info).orderStatus({ oid })).status

describe('a cancel whose 504 answer was lost, against the sandbox', () => {
  it('is not executed once it can no longer execute and its target is still open (by cloid and by oid); one that ran is cancelled; before expiry it waits', async () => {
    const a = await restingBid()
    const b = await restingBid()
    const c = await restingBid()
    const byCloid = await lostCancel({ cloid: a.cloid }, false)
    const byOid = await lostCancel({ oid: b.oid }, false)
    const ran = await lostCancel({ cloid: c.cloid }, true)

    await rec.reconcileOnce()
    // Still able to execute: not final yet, whatever the book shows.
    for (const s of [byCloid, byOid, ran]) expect(journal.get(s.id)!.state, s.summary).toBe('unknown')

    await new Promise((r) => setTimeout(r, 2000)) // past expires_after_ms (1.5 s) and the grace, by block time too
    await rec.reconcileOnce()
    expect(await statusOf(a.oid)).toBe('open')
    expect(await statusOf(b.oid)).toBe('open')
    expect(await statusOf(c.oid)).toBe('cancelled')
    expect(journal.get(byCloid.id)).toMatchObject({ state: 'reconciled', finalStatus: 'notexecuted' })
    expect(journal.get(byOid.id)).toMatchObject({ state: 'reconciled', finalStatus: 'notexecuted' })
    expect(journal.get(ran.id)).toMatchObject({ state: 'reconciled', finalStatus: 'cancelled' })
    // Ground truth agrees: only the third cancel executed.
    const cancels = sb.trading.groundTruth().filter((t) => t.actionType === 'cancel')
    expect(cancels.map((t) => t.nonce)).toEqual([ran.nonce])
  })
})

describe('a lost cancel that ran and failed inside its block (its target still open)', () => {
  it('ends "took no effect" (notexecuted, saying the exchange cannot tell it from never ran), never success; the target is still open', async () => {
    const t = await restingBid()
    // The cancel is included in a block and fails there (nothing applied); its answer is the wait-budget timeout.
    sb.trading.faults.failTx = { count: 1 }
    sb.trading.faults.tradeTimeout = { count: 1, executed: true }
    const action = { type: 'cancel', market_id: '1', cloid: t.cloid } as TradeAction
    await expect(sub.submit({ ...who, action, summary: 'cancel that fails in its block' })).rejects.toMatchObject({
      code: 'TradeOutcomeUnknown',
    })
    Object.assign(sb.trading.faults, { failTx: null, tradeTimeout: null })
    const s = journal.list({ order: 'newest', limit: 1 })[0]!

    await new Promise((r) => setTimeout(r, 2000)) // past expires_after_ms and the grace
    await rec.reconcileOnce()
    expect(await statusOf(t.oid)).toBe('open')
    expect(journal.get(s.id)).toMatchObject({ state: 'reconciled', finalStatus: 'notexecuted' })
    expect(journal.history(s.id).at(-1)?.note).toMatch(new RegExp(`^${CANCEL_NO_EFFECT}.*still open.*does not record`))
    // Ground truth: it ran once and failed. The judge accepts "took no effect" for it, and only for it.
    const ran = sb.trading.groundTruth().filter((x) => x.authority.toLowerCase() === s.signer && x.nonce === s.nonce)
    expect(ran.map((x) => x.status)).not.toContain('success')
    expect(ran).toHaveLength(1)
    const { verdicts } = judge(sb, journal, 'cancel-failed-in-block', [owner.address])
    const v = verdicts.find((x) => x.entries[0]!.id === s.id)!
    expect(v).toMatchObject({ truth: 'failed', journal: 'notexecuted', wrong: false, noEffect: true })
  })
})

describe('a lost cancel whose target was filled meanwhile', () => {
  it('ends "took no effect" (notexecuted, nothing left to cancel), claiming neither that it ran nor that it did not', async () => {
    // The best bid in market 1 (above the seeded 61000), then filled by another owner's sell.
    const t = await restingBid('61500')
    const seller = privateKeyToAccount(devOwner(2).privateKey as `0x${string}`)
    const sell = new TradeSubmitter({
      network: 'sandbox',
      tradeUrl: `${sb.tradingUrl}/trade`,
      chainId: CHAIN_IDS.sandbox,
      journal,
      signer: localTradeSigner(() => seller),
      scheduler: new RateScheduler({ ratePerSec: 1000 }),
    })
    const fill = await sell.submit({
      account: seller.address,
      signer: { owner: seller.address, role: 'owner' },
      action: {
        type: 'order',
        market_id: '1',
        side: 'ask',
        order_type: 'limit',
        tif: 'ioc',
        price: '61500',
        quantity: '0.001',
      } as TradeAction,
      summary: 'sell into the bid',
    })
    expect(fill.leaves[0]).toMatchObject({ kind: 'filled' })
    expect(await statusOf(t.oid)).toBe('filled')
    // The cancel never reaches a block (its answer is a 504, nothing ran).
    const s = await lostCancel({ oid: t.oid }, false)
    await new Promise((r) => setTimeout(r, 2000)) // past expires_after_ms and the grace
    await rec.reconcileOnce()
    expect(journal.get(s.id)).toMatchObject({ state: 'reconciled', finalStatus: 'notexecuted' })
    expect(journal.history(s.id).at(-1)?.note).toMatch(
      new RegExp(`^${CANCEL_NO_EFFECT}: its target is no longer open.*filled.*does not record`),
    )
    const { verdicts, problems } = judge(sb, journal, 'cancel-of-filled', [owner.address])
    const v = verdicts.find((x) => x.entries[0]!.id === s.id)!
    expect(v).toMatchObject({ truth: 'notexecuted', journal: 'notexecuted', wrong: false })
    expect(problems.filter((p) => p.includes(s.key))).toEqual([])
  })
})
