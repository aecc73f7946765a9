import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startSandbox, type SandboxHandle } from '../../sandbox/index'
import { postJson, TransportFailure, type HttpPoster } from '../../main/core/exchange/trade/http-post'
import { outcomeOf, type Journal, type Submission } from '../../main/core/journal'
import { openTempJournal } from '../../main/core/journal/testing/temp-journal'
import { activateFor, cancelOrder, placeOrder, settle, transfer, withdraw } from '../../main/testing/direct-writes'
import type { WriteSide } from '../../main/core/session/write-side'
import {
  ChaosAccounts,
  judge,
  printFigures,
  reconcileUntilSettled,
  sleep,
  writeSideFor,
  type Wallet,
} from '../../main/testing/chaos-harness'

/**
 * Issue 11 item 8.3: an outage that outlasts txStatusByCloid's lookback. Every answer is lost
 * (some writes executed, some did not), then the service moves past 10 000 blocks before the
 * desk can reconcile. No executed write may be journaled `notexecuted`: it is success through
 * other evidence (an open order, a withdraw record) or `unresolved`. A cloid left unresolved
 * cannot be sent again until the operator's acknowledgement is journaled.
 */
let sb: SandboxHandle
let journal: Journal
let ws: WriteSide
let acc: ChaosAccounts
let dstChainId: string
let dropAnswers = true

/** The outage: every /trade answer is lost on its way back (the request itself arrived). */
const outage: HttpPoster = async (url, body, opts) => {
  const answer = await postJson(url, body, opts)
  if (dropAnswers && url.endsWith('/trade')) throw new TransportFailure('afterWrite', 'reset', 'chaos: outage, answer lost')
  return answer
}

beforeAll(async () => {
  sb = await startSandbox({ port: 0, seed: true, blockMs: 20, botIntervalMs: 0, rateLimits: false, markStepBps: 0 })
  acc = new ChaosAccounts(sb)
  journal = openTempJournal()
  ws = writeSideFor(sb, journal, acc.vault, { post: outage, expiresInMs: 1500, expiryGraceMs: 200 })
  const mins = await ws.reads.withdrawMinimums()
  dstChainId = [...mins.keys()].find((k) => k.endsWith(':1'))!.split(':')[0]!
})

afterAll(async () => {
  await ws?.stop()
  await journal?.close()
  await sb?.stop()
})

type Write = { name: string; run: () => Promise<unknown> }

describe('chaos: an outage longer than the lookback window', () => {
  it('never journals an executed write as not executed; an unresolved cloid needs an acknowledgement', { timeout: 120_000 }, async () => {
    const t0 = Date.now()
    const a = acc.balance({ 1: '100000' })
    const b = acc.balance({ 1: '10' })
    const credit = acc.credit({ 3: '1' })
    const owners = [a, b, credit].map((w) => w.address)
    // An order that rests before the outage, so a cancel has something to cancel.
    dropAnswers = false
    await placeOrder(ws.ctx, {
      account: a.address,
      market: 1,
      side: 'bid',
      orderType: 'limit',
      tif: 'gtc',
      price: '30000',
      quantity: '0.01',
    })
    const [resting] = (await ws.reads.openOrders(a.address, 1)).orders
    dropAnswers = true
    const ctx = ws.ctx
    const target = acc.fresh()
    const writes = (who: Wallet, tag: string): Write[] => [
      {
        name: `transfer ${tag}`,
        run: () => transfer(ctx, { from: who.address, to: b.address, asset: 'USDC', amount: tag === 'ran' ? '1.1' : '1.2' }),
      },
      { name: `settle ${tag}`, run: () => settle(ctx, { from: credit.address, to: who.address, asset: 'BTC', amount: '0.001' }) },
      {
        name: `withdraw ${tag}`,
        run: () => withdraw(ctx, { account: who.address, asset: 'USDC', amount: '100', dstChainId, dstAddress: who.address }),
      },
      {
        name: `order ${tag}`,
        run: () =>
          placeOrder(ctx, {
            account: who.address,
            market: 1,
            side: 'bid',
            orderType: 'limit',
            tif: 'gtc',
            price: '31000',
            quantity: '0.01',
          }),
      },
      {
        name: `activate ${tag}`,
        run: () => activateFor(ctx, { from: who.address, target: tag === 'ran' ? target.address : acc.fresh().address, asset: 'USDC' }),
      },
    ]
    const codes: string[] = []
    // Executed, answer lost.
    for (const w of [
      ...writes(a, 'ran'),
      { name: 'cancel ran', run: () => cancelOrder(ctx, { account: a.address, market: 1, oid: resting!.oid }) },
    ]) {
      codes.push(
        await w.run().then(
          () => 'answered',
          (e: { code?: string }) => e.code ?? 'error',
        ),
      )
    }
    // Never executed (the node was unreachable), answer lost as well.
    for (const w of writes(a, 'lost')) {
      sb.trading.faults.nodeUnreachable504 = { count: 1, executed: false }
      codes.push(
        await w.run().then(
          () => 'answered',
          (e: { code?: string }) => e.code ?? 'error',
        ),
      )
    }
    sb.trading.faults.nodeUnreachable504 = null
    expect(
      codes.every((c) => c === 'TradeOutcomeUnknown'),
      codes.join(','),
    ).toBe(true)
    expect(journal.unresolved('sandbox').length).toBe(codes.length)

    // The service moves on past the lookback window before the desk reconciles anything.
    const head = sb.trading.advanceBlocks(10_001)
    await sleep(1800) // every envelope is past its expiry
    dropAnswers = false
    await reconcileUntilSettled(ws, journal, 20_000, 200)

    const { figures, verdicts, problems } = judge(sb, journal, 'lookback-outage', owners)
    const mine = verdicts.filter((v) => v.entries[0]!.createdAt >= t0)
    figures.headAfterAdvance = head.height
    figures.executedJournaledNotExecuted = verdicts.filter(
      (v) => v.ran > 0 && (v.journal === 'notexecuted' || v.journal === 'rejected'),
    ).length
    figures.executedShownSuccess = verdicts.filter((v) => v.ran > 0 && v.journal === 'success').length
    figures.notExecutedShownNotExecuted = verdicts.filter((v) => v.ran === 0 && v.journal === 'notexecuted').length
    figures.verdicts = Object.fromEntries(
      mine.map((v) => [`${v.entries[0]!.summary.split(' ')[0]}:${v.key.slice(0, 10)}`, `ran ${v.ran} -> ${v.journal}`]),
    )
    figures.wallMs = Date.now() - t0
    printFigures(figures)

    expect(problems).toEqual([])
    expect(figures.executedJournaledNotExecuted).toBe(0)
    expect(figures.wrongStatus).toBe(0)
    expect(figures.nonFinal).toBe(0)
    expect(figures.duplicates).toBe(0)
    // Outside the window txStatusByCloid says nothing: transfers and settles cannot be settled.
    expect(figures.unresolved).toBeGreaterThan(0)
    // Other evidence still settles some: the resting order (orderStatus), the withdraw record.
    expect(figures.executedShownSuccess).toBeGreaterThanOrEqual(2)

    // Resubmitting an unresolved cloid is refused, nothing signed, nothing sent.
    const unresolvedTransfers = journal.list({ actionType: 'transfer', state: 'unresolved', order: 'oldest' })
    expect(unresolvedTransfers.length).toBe(2)
    const notRan = unresolvedTransfers.find((e) => sb.trading.groundTruth().every((t) => t.cloid !== e.key))!
    const signatures = acc.vault.signatures
    const count = journal.count()
    await expect(transfer(ctx, { from: a.address, to: b.address, asset: 'USDC', amount: '1.2', cloid: notRan.key })).rejects.toMatchObject({
      code: 'CloidUnresolved',
    })
    expect(acc.vault.signatures).toBe(signatures)
    expect(journal.count()).toBe(count)
    // Once the operator journals what was checked, the cloid may carry a new write, which runs once.
    journal.acknowledgeUnresolved(notRan.id, 'checked both balances: the 1.2 USDC transfer did not move')
    const again = await transfer(ctx, { from: a.address, to: b.address, asset: 'USDC', amount: '1.2', cloid: notRan.key })
    expect(again.outcome.state).toBe('accepted')
    expect(sb.trading.groundTruth().filter((t) => t.cloid === notRan.key)).toHaveLength(1)
    const ackd: Submission = journal.get(notRan.id)!
    expect(outcomeOf(ackd)).toMatchObject({ kind: 'unresolved', acknowledged: true })
  })
})
