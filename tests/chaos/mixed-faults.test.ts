import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startSandbox, type SandboxHandle } from '../../sandbox/index'
import { postJson, TransportFailure, type HttpPoster } from '../../main/core/exchange/trade/http-post'
import { type Journal } from '../../main/core/journal'
import { openTempJournal } from '../../main/core/journal/testing/temp-journal'
import {
  cancelEarnWithdrawal,
  cancelOrder,
  createEarnWithdrawal,
  placeOrder,
  settle,
  transfer,
  withdraw,
} from '../../main/testing/direct-writes'
import type { WriteSide } from '../../main/core/session/write-side'
import { ChaosAccounts, judge, printFigures, reconcileUntilSettled, writeSideFor, type Wallet } from '../../main/testing/chaos-harness'

/**
 * Issue 11 item 8.2: at least 200 mixed writes (transfers, orders, cancels by oid and cloid,
 * settles, withdraws, earn creates and cancels) from 8 accounts at once, while about 20 % of
 * the requests meet a fault: 503, 504 (executed or not), wait-budget timeouts (executed or
 * not), 429, a few writes that fail inside their block (failTx), and answers dropped after the service executed. Ground truth judges the journal:
 * 0 duplicates, 0 lost, 0 wrong statuses, every write final or explicitly unresolved.
 */
const WORKERS = 8
const WRITES_PER_WORKER = 26
/** Per-request probabilities: the sandbox's rules plus dropped answers here; about 20 % in all. */
const P = { unavailable503: 0.05, unreachable504: 0.04, timeout: 0.03, rateLimited: 0.04, dropped: 0.04 }

let sb: SandboxHandle
let journal: Journal
let ws: WriteSide
let acc: ChaosAccounts
let dstChainId: string

let seed = 11
const rnd = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31
const injected = { dropped: 0, earnUnavailable: 0 }

/** Drops the answer of a write after the service executed it (connection lost on the way back). */
const dropping: HttpPoster = async (url, body, opts) => {
  const write = url.endsWith('/trade') || (url.includes('/api/v3/earn') && body.includes('"user_signature"'))
  if (!write) return postJson(url, body, opts)
  const x = rnd()
  if (url.includes('/api/v3/earn') && x < P.unavailable503) {
    injected.earnUnavailable++
    return { status: 200, headers: {}, text: JSON.stringify({ code: 131002, message: 'backend unavailable' }) }
  }
  const answer = await postJson(url, body, opts)
  if (x > 1 - P.dropped) {
    injected.dropped++
    throw new TransportFailure('afterWrite', 'reset', 'chaos: answer dropped')
  }
  return answer
}

beforeAll(async () => {
  sb = await startSandbox({
    port: 0,
    seed: true,
    blockMs: 20,
    botIntervalMs: 0,
    rateLimits: false,
    markStepBps: 0,
    tradeWaitBudgetMs: 150,
    earnPendingSeconds: 600,
    earnPayoutStageMs: 50,
  })
  acc = new ChaosAccounts(sb)
  journal = openTempJournal()
  ws = writeSideFor(sb, journal, acc.vault, { post: dropping, expiresInMs: 2500 })
  const mins = await ws.reads.withdrawMinimums()
  dstChainId = [...mins.keys()].find((k) => k.endsWith(':1'))!.split(':')[0]!
})

afterAll(async () => {
  await ws?.stop()
  await journal?.close()
  await sb?.stop()
})

interface Worker {
  cash: Wallet
  peer: Wallet
  credit: Wallet
  orders: { oid?: string; cloid: string }[]
  earnOp: string | null
}

const cloid = () => `0x${[...crypto.getRandomValues(new Uint8Array(16))].map((b) => b.toString(16).padStart(2, '0')).join('')}`

async function oneWrite(w: Worker, i: number): Promise<string> {
  const x = rnd()
  const ctx = ws.ctx
  if (x < 0.2)
    return (await transfer(ctx, { from: w.cash.address, to: w.peer.address, asset: 'USDC', amount: `1.${String(i).padStart(2, '0')}` }))
      .outcome.state
  if (x < 0.4) {
    const c = cloid()
    w.orders.push({ cloid: c })
    return (
      await placeOrder(ctx, {
        account: w.cash.address,
        market: 1,
        side: 'bid',
        orderType: 'limit',
        tif: 'gtc',
        price: '30000',
        quantity: '0.01',
        cloid: c,
      })
    ).outcome.state
  }
  if (x < 0.55 && w.orders.length > 0) {
    const o = w.orders.shift()!
    if (rnd() < 0.5) return (await cancelOrder(ctx, { account: w.cash.address, market: 1, cloid: o.cloid })).outcome.state
    const open = (await ctx.reads.openOrders(w.cash.address, 1)).orders.find((x) => x.cloid?.toLowerCase() === o.cloid)
    if (!open) return 'skipped'
    return (await cancelOrder(ctx, { account: w.cash.address, market: 1, oid: open.oid })).outcome.state
  }
  if (x < 0.7) return (await settle(ctx, { from: w.credit.address, to: w.cash.address, asset: 'BTC', amount: '0.001' })).outcome.state
  if (x < 0.8)
    return (await withdraw(ctx, { account: w.cash.address, asset: 'USDC', amount: '100', dstChainId, dstAddress: w.cash.address })).outcome
      .state
  if (w.earnOp) {
    const op = w.earnOp
    w.earnOp = null
    return (await cancelEarnWithdrawal(ws.earnCtx, { user: w.cash.address, operationId: op })).state
  }
  const r = await createEarnWithdrawal(ws.earnCtx, { user: w.cash.address, asset: 'USDC', amount: '5', type: 'scheduled' })
  w.earnOp = r.operationId
  return r.state
}

describe('chaos: mixed writes under injected faults', () => {
  it('200+ writes at ~20 % faults: no duplicate, no loss, no wrong status, all final or unresolved', { timeout: 180_000 }, async () => {
    const t0 = Date.now()
    const workers: Worker[] = Array.from({ length: WORKERS }, () => {
      const cash = acc.balance({ 1: '100000' })
      sb.earn.deposit({ user: cash.address, assetId: 1, amount: 100_000n * 10n ** 8n })
      return { cash, peer: acc.balance({ 1: '10' }), credit: acc.credit({ 3: '1' }), orders: [], earnOp: null }
    })
    const f = sb.trading.faults
    f.unavailable503 = { probability: P.unavailable503 }
    f.rateLimited = { probability: P.rateLimited, retryAfterMs: 30 }
    const outcomes = new Map<string, number>()
    let attempted = 0
    await Promise.all(
      workers.map(async (w) => {
        for (let i = 0; i < WRITES_PER_WORKER; i++) {
          // 504s and timeouts alternate between "executed" and "not executed" every few writes.
          const executed = Math.floor(attempted / 16) % 2 === 0
          f.nodeUnreachable504 = { probability: P.unreachable504, executed }
          f.tradeTimeout = { probability: P.timeout, executed: !executed }
          // Now and then the next write is included in a block and fails there (nothing applied):
          // the "executed with failure" case the journal must call failed, never success.
          if (attempted % 25 === 12) f.failTx = { count: 1 }
          attempted++
          const r = await oneWrite(w, i).catch((e: { code?: string }) => e.code ?? 'error')
          outcomes.set(r, (outcomes.get(r) ?? 0) + 1)
        }
      }),
    )
    Object.assign(f, { failTx: null, unavailable503: null, rateLimited: null, nodeUnreachable504: null, tradeTimeout: null })
    const writesDone = Date.now()
    await reconcileUntilSettled(ws, journal, 40_000, 200)

    const owners = workers.flatMap((w) => [w.cash.address, w.credit.address, w.peer.address])
    const { figures, verdicts, problems } = judge(sb, journal, 'mixed-faults', owners)
    const entries = journal.list()
    figures.attempted = attempted
    figures.executedWithFailure = verdicts.filter((v) => v.truth === 'failed').length
    figures.faultRate = Object.values(P).reduce((a, b) => a + b, 0)
    figures.injectedDropped = injected.dropped
    figures.injectedEarnUnavailable = injected.earnUnavailable
    figures.resends = entries.reduce((n, e) => n + Math.max(0, e.attempts - 1), 0)
    figures.callerOutcomes = Object.fromEntries(outcomes)
    figures.writePhaseMs = writesDone - t0
    figures.wallMs = Date.now() - t0
    printFigures(figures)
    // Unresolved is allowed only with the reconciler's reason; print each one with it.
    for (const u of entries.filter((e) => e.state === 'unresolved'))
      console.log(`unresolved ${u.actionType} ${u.key}: ${JSON.parse(u.evidence ?? '{}').checks?.join('; ')}`)

    expect(problems).toEqual([])
    expect(figures.writes).toBeGreaterThanOrEqual(200)
    expect(figures.duplicates).toBe(0)
    expect(figures.lost).toBe(0)
    expect(figures.wrongStatus).toBe(0)
    expect(figures.nonFinal).toBe(0)
    // "Explicitly" unresolved: each says what was checked and what the operator should check.
    for (const u of entries.filter((e) => e.state === 'unresolved'))
      expect([u.evidence, u.advice].every((x) => typeof x === 'string' && x.length > 0)).toBe(true)
    // The faults did reach the hard cases: lost answers that had executed, and resends.
    expect(injected.dropped).toBeGreaterThan(0)
    expect(outcomes.get('TradeOutcomeUnknown') ?? 0).toBeGreaterThan(0)
    expect(figures.resends).toBeGreaterThan(0)
    expect(figures.executedWithFailure).toBeGreaterThan(0)
  })
})
