import { afterEach, describe, expect, it, vi } from 'vitest'
import { openJournalFile, type Journal } from '../../journal'
import { NONCE_MAX_AGE_MS, TradeReconciler, type TradeReads } from './reconciler'
import type { SchedulerLike } from './submitter'

const OWNER = '0x1111111111111111111111111111111111111111'
const AGENT = '0x2222222222222222222222222222222222222222'
const CL = '0x' + 'ab'.repeat(16)

const lanes: string[] = []
const sched: SchedulerLike = { run: (lane, task) => (lanes.push(lane), task()), pauseFor: () => undefined }

let j: Journal
afterEach(() => j?.closeNow())

function reads(over: Partial<TradeReads> = {}): TradeReads & { calls: string[] } {
  const calls: string[] = []
  return {
    calls,
    txStatusByCloid: async (u, c) => (calls.push(`tx ${u} ${c}`), { found: false, status: null, actionType: null }),
    orderStatus: async (q) => (calls.push(`os ${JSON.stringify(q)}`), { found: false, status: null, filledQty: null }),
    userAgents: async () => [],
    openOrders: async () => [],
    // Latest height 20000; heights from 10001 on are retained (the 10000-block lookback).
    queryStatus: async () => ({ height: 20_000n, timeMs: null, earliestRetainedHeight: 10_001n }),
    ...over,
  }
}

let seq = 1
function entry(
  action: Record<string, unknown>,
  state: 'signed' | 'sent' | 'unknown',
  expires = 10_000,
  signer = OWNER,
  submitHeight: string | null = '15000',
) {
  const body = JSON.stringify({
    action,
    nonce: String(Math.floor(Math.random() * 1e9)),
    expires_after_ms: String(expires),
    signature: '0x',
  })
  const s = j.record({
    channel: 'trade',
    key: (action.cloid as string) ?? 'local',
    network: 'sandbox',
    account: OWNER,
    signer,
    actionType: String(action.type),
    summary: '',
    nonce: String(seq++),
    body,
    submitHeight,
  })
  if (state !== 'signed') j.update(s.id, { state: 'sent' })
  if (state === 'unknown') j.update(s.id, { state: 'unknown', code: 'NodeUnreachable' })
  return j.get(s.id)!
}

describe('TradeReconciler', () => {
  it('an entry still `signed` was never sent and becomes final as notsent', async () => {
    let t = 0
    j = openJournalFile(':memory:', { now: () => t })
    const s = entry({ type: 'settle', cloid: CL }, 'signed')
    t = 100_000
    const r = new TradeReconciler({ network: 'sandbox', journal: j, reads: reads(), scheduler: sched, now: () => t })
    expect(await r.reconcileOnce()).toMatchObject({ resolved: 1, pending: 0 })
    expect(j.get(s.id)).toMatchObject({ state: 'reconciled', finalStatus: 'notsent' })
  })

  it('resolves by txStatusByCloid with the signer as the authority, in the reconcile lane', async () => {
    j = openJournalFile(':memory:')
    const s = entry({ type: 'settle', cloid: CL }, 'unknown', 10_000, AGENT)
    const rd = reads({ txStatusByCloid: async (u) => (rd.calls.push(u), { found: true, status: 'ok', actionType: 'settle' }) })
    lanes.length = 0
    const r = new TradeReconciler({ network: 'sandbox', journal: j, reads: rd, scheduler: sched, now: () => 0 })
    await r.reconcileOnce()
    expect(rd.calls).toEqual([AGENT.toLowerCase()])
    expect(lanes).toEqual(['reconcile', 'reconcile']) // queryStatus, txStatusByCloid
    expect(j.get(s.id)).toMatchObject({ state: 'reconciled', finalStatus: 'success', code: 'NodeUnreachable' })
  })

  it('an execution error code (or `failed`) ends the entry failed, with the code and advice', async () => {
    j = openJournalFile(':memory:')
    const s = entry({ type: 'repay', cloid: CL }, 'unknown')
    const t = entry({ type: 'settle', cloid: '0x' + 'cd'.repeat(16) }, 'unknown')
    const r = new TradeReconciler({
      network: 'sandbox',
      journal: j,
      reads: reads({
        txStatusByCloid: async (_u, c) => ({ found: true, status: c === CL ? 'invalidrepay' : 'failed', actionType: 'repay' }),
      }),
      scheduler: sched,
      now: () => 0,
    })
    await r.reconcileOnce()
    expect(j.get(s.id)).toMatchObject({ state: 'failed', code: 'invalidrepay', advice: expect.stringMatching(/over-repay/) })
    expect(j.get(t.id)).toMatchObject({ state: 'failed', code: 'failed', advice: expect.stringMatching(/without a single error code/) })
  })

  it('an order is resolved with its order status', async () => {
    j = openJournalFile(':memory:')
    const s = entry({ type: 'order', market_id: '1', cloid: CL }, 'unknown')
    const r = new TradeReconciler({
      network: 'sandbox',
      journal: j,
      reads: reads({
        txStatusByCloid: async () => ({ found: true, status: 'ok', actionType: 'order' }),
        orderStatus: async () => ({ found: true, status: 'partiallyfilledresting', filledQty: '1' }),
      }),
      scheduler: sched,
      now: () => 0,
    })
    await r.reconcileOnce()
    expect(j.get(s.id)).toMatchObject({ state: 'reconciled', finalStatus: 'partiallyfilledresting' })
  })

  it('not found stays unknown until the envelope expired (plus grace), then is final as notexecuted', async () => {
    j = openJournalFile(':memory:')
    let t = 5_000
    const s = entry({ type: 'settle', cloid: CL }, 'unknown', 10_000)
    const r = new TradeReconciler({ network: 'sandbox', journal: j, reads: reads(), scheduler: sched, now: () => t, expiryGraceMs: 1000 })
    expect(await r.reconcileOnce()).toMatchObject({ resolved: 0, pending: 1 })
    expect(j.get(s.id)!.state).toBe('unknown')
    t = 11_001
    expect(await r.reconcileOnce()).toMatchObject({ resolved: 1, pending: 0 })
    expect(j.get(s.id)).toMatchObject({ state: 'reconciled', finalStatus: 'notexecuted' })
  })

  it('leaves recent `sent` entries and this process in-flight ones alone', async () => {
    let t = 0
    j = openJournalFile(':memory:', { now: () => t })
    const a = entry({ type: 'settle', cloid: CL }, 'sent')
    const b = entry({ type: 'settle', cloid: '0x' + 'cd'.repeat(16) }, 'unknown')
    const r = new TradeReconciler({
      network: 'sandbox',
      journal: j,
      reads: reads(),
      scheduler: sched,
      now: () => t,
      minAgeMs: 1000,
      inFlight: new Set([b.id]),
    })
    expect(await r.reconcileOnce()).toMatchObject({ checked: 0, pending: 1 })
    t = 2000
    await r.reconcileOnce()
    expect(j.get(a.id)!.state).toBe('unknown') // interrupted send: now reconciled by cloid
    expect(j.get(b.id)!.state).toBe('unknown')
  })

  it('actions without a cloid are judged by their effect after expiry', async () => {
    j = openJournalFile(':memory:')
    const t = 100_000
    const approve = entry({ type: 'approveAgent', slot_id: 1, agent: AGENT }, 'unknown', 1000)
    const cancelAll = entry({ type: 'cancelAll', market_id: '2' }, 'unknown', 1000)
    const cancel = entry({ type: 'cancel', market_id: '2', oid: '9' }, 'unknown', 1000)
    const byCloid = entry({ type: 'cancel', market_id: '2', cloid: '0x' + 'ee'.repeat(16) }, 'unknown', 1000)
    const r = new TradeReconciler({
      network: 'sandbox',
      journal: j,
      reads: reads({
        userAgents: async () => [{ slotId: 1, agent: AGENT, epoch: '4' }],
        openOrders: async () => [{ oid: '1', cloid: null }],
        orderStatus: async () => ({ found: true, status: 'cancelled', filledQty: '0' }),
      }),
      scheduler: sched,
      now: () => t,
    })
    await r.reconcileOnce()
    expect(j.get(approve.id)).toMatchObject({ state: 'reconciled', finalStatus: 'executed' })
    // Orders still open after a lost cancel-all: the exchange does not tell whether it ran.
    expect(j.get(cancelAll.id)).toMatchObject({ state: 'unresolved', advice: expect.stringMatching(/cancel again/) })
    expect(j.get(cancel.id)).toMatchObject({ state: 'reconciled', finalStatus: 'cancelled' })
    // A cancel by cloid had executed: read from the exchange, not declared not executed.
    expect(j.get(byCloid.id)).toMatchObject({ state: 'reconciled', finalStatus: 'cancelled' })
  })

  it('a failing read counts as failed and keeps the entry for the next pass', async () => {
    j = openJournalFile(':memory:')
    const s = entry({ type: 'settle', cloid: CL }, 'unknown')
    const r = new TradeReconciler({
      network: 'sandbox',
      journal: j,
      reads: reads({ txStatusByCloid: async () => Promise.reject(new Error('503')) }),
      scheduler: sched,
      now: () => 0,
    })
    expect(await r.reconcileOnce()).toMatchObject({ failed: 1, pending: 1 })
    expect(j.get(s.id)!.state).toBe('unknown')
  })

  it('past the lookback window, "not found" is unresolved (with evidence and advice), never notexecuted', async () => {
    j = openJournalFile(':memory:')
    // Sent at height 5000; the service now only retains heights from 10001: an execution would be invisible.
    const old = entry({ type: 'settle', cloid: CL }, 'unknown', 1000, OWNER, '5000')
    const noHeight = entry({ type: 'repay', cloid: '0x' + 'cd'.repeat(16) }, 'unknown', 1000, OWNER, null)
    const inside = entry({ type: 'transfer', cloid: '0x' + 'ef'.repeat(16) }, 'unknown', 1000, OWNER, '10001')
    const seen: number[] = []
    const r = new TradeReconciler({
      network: 'sandbox',
      journal: j,
      reads: reads(),
      scheduler: sched,
      now: () => 100_000,
      onUnresolved: (s) => seen.push(s.id),
    })
    expect(await r.reconcileOnce()).toMatchObject({ resolved: 3, pending: 0 })
    const o = j.get(old.id)!
    expect(o).toMatchObject({
      state: 'unresolved',
      finalStatus: 'unresolved',
      advice: expect.stringMatching(/position and the cash account/),
    })
    const ev = JSON.parse(o.evidence!)
    expect(ev).toMatchObject({ submitHeight: '5000', window: { earliestRetainedHeight: '10001', height: '20000' } })
    expect(ev.checks).toEqual([expect.stringMatching(/txStatusByCloid.*not found/)])
    expect(j.get(noHeight.id)).toMatchObject({ state: 'unresolved' })
    expect(j.history(noHeight.id).at(-1)?.note).toMatch(/no height was journaled/)
    expect(j.get(inside.id)).toMatchObject({ state: 'reconciled', finalStatus: 'notexecuted' })
    expect(seen).toEqual([old.id, noHeight.id])
    // Unresolved entries leave the reconciler's list (they wait for the operator).
    expect(j.unresolved('sandbox')).toEqual([])
  })

  it('uses the service block time for expiry: a block past expires_after_ms proves it can no longer execute', async () => {
    j = openJournalFile(':memory:')
    const s = entry({ type: 'settle', cloid: CL }, 'unknown', 50_000)
    const r = new TradeReconciler({
      network: 'sandbox',
      journal: j,
      reads: reads({ queryStatus: async () => ({ height: 20_000n, timeMs: 50_001, earliestRetainedHeight: 10_001n }) }),
      scheduler: sched,
      now: () => 40_000,
    })
    await r.reconcileOnce()
    expect(j.get(s.id)).toMatchObject({ state: 'reconciled', finalStatus: 'notexecuted' })
  })

  it('an order refused at validation (transaction found, no order, no status record) ends failed, not success', async () => {
    j = openJournalFile(':memory:')
    const s = entry({ type: 'order', market_id: '1', cloid: CL }, 'unknown')
    const r = new TradeReconciler({
      network: 'sandbox',
      journal: j,
      reads: reads({ txStatusByCloid: async () => ({ found: true, status: 'success', actionType: 'order' }) }),
      scheduler: sched,
      now: () => 0,
    })
    await r.reconcileOnce()
    expect(j.get(s.id)).toMatchObject({ state: 'failed', code: 'orderrefused' })
  })

  it('a batch with order cloids whose orders have no record ends failed; one with an order on the book executed', async () => {
    j = openJournalFile(':memory:')
    const c1 = '0x' + '01'.repeat(16)
    const c2 = '0x' + '02'.repeat(16)
    const none = entry({ type: 'batch', items: [{ type: 'order', market_id: '1', cloid: c1 }] }, 'unknown')
    const some = entry(
      {
        type: 'batch',
        items: [
          { type: 'order', market_id: '1', cloid: c2 },
          { type: 'cancel', market_id: '1', oid: '5' },
        ],
      },
      'unknown',
    )
    const r = new TradeReconciler({
      network: 'sandbox',
      journal: j,
      reads: reads({
        txStatusByCloid: async () => ({ found: true, status: 'success', actionType: 'batch' }),
        orderStatus: async (q) =>
          'cloid' in q && q.cloid === c2
            ? { found: true, status: 'open', filledQty: '0' }
            : 'oid' in q
              ? { found: true, status: 'cancelled', filledQty: '0' }
              : { found: false, status: null, filledQty: null },
      }),
      scheduler: sched,
      now: () => 0,
    })
    await r.reconcileOnce()
    expect(j.get(none.id)).toMatchObject({ state: 'failed', code: 'batchnoeffect' })
    expect(j.get(some.id)).toMatchObject({ state: 'reconciled', finalStatus: 'executed' })
  })

  it('batches of cancels are read item by item: all cancelled executed, a filled target is failed, an open target not executed, a missing one unresolved', async () => {
    j = openJournalFile(':memory:')
    const allDone = entry(
      {
        type: 'batch',
        items: [
          { type: 'cancel', market_id: '1', oid: '1' },
          { type: 'cancel', market_id: '1', cloid: '0x' + 'aa'.repeat(16) },
        ],
      },
      'unknown',
      1000,
    )
    const filled = entry({ type: 'cancel', market_id: '1', oid: '2' }, 'unknown', 1000)
    // Had this envelope executed, oid 3 would be cancelled: that it is open proves it did not.
    const oneOpen = entry(
      {
        type: 'batch',
        items: [
          { type: 'cancel', market_id: '1', oid: '1' },
          { type: 'cancel', market_id: '1', oid: '3' },
        ],
      },
      'unknown',
      1000,
    )
    const mixed = entry(
      {
        type: 'batch',
        items: [
          { type: 'cancel', market_id: '1', oid: '1' },
          { type: 'cancel', market_id: '1', oid: '4' },
        ],
      },
      'unknown',
      1000,
    )
    const young = entry({ type: 'cancel', market_id: '1', oid: '1' }, 'unknown', 200_000)
    const status: Record<string, string> = { '1': 'cancelled', '2': 'filled', '3': 'open' }
    const r = new TradeReconciler({
      network: 'sandbox',
      journal: j,
      reads: reads({
        orderStatus: async (q) =>
          'oid' in q && !status[q.oid]
            ? { found: false, status: null, filledQty: null }
            : { found: true, status: 'oid' in q ? status[q.oid]! : 'cancelled', filledQty: '0' },
      }),
      scheduler: sched,
      now: () => 100_000,
    })
    await r.reconcileOnce()
    expect(j.get(allDone.id)).toMatchObject({ state: 'reconciled', finalStatus: 'executed' })
    // Its target filled: no effect, and whether the cancel ran (missingorder) is not claimed.
    expect(j.get(filled.id)).toMatchObject({ state: 'reconciled', finalStatus: 'notexecuted' })
    expect(j.history(filled.id).at(-1)?.note).toMatch(/^the cancel took no effect: its target is no longer open \(oid 2: filled/)
    expect(j.history(filled.id).at(-1)?.note).toMatch(/nothing left to cancel/)
    expect(j.get(oneOpen.id)).toMatchObject({ state: 'reconciled', finalStatus: 'notexecuted' })
    expect(j.history(oneOpen.id).at(-1)?.note).toMatch(/oid 3: still open/)
    expect(j.get(mixed.id)).toMatchObject({ state: 'unresolved' })
    expect(JSON.parse(j.get(mixed.id)!.evidence!).checks).toEqual([
      expect.stringMatching(/oid 1.*cancelled/),
      expect.stringMatching(/oid 4.*not found/),
    ])
    expect(j.get(young.id)!.state).toBe('unknown') // can still execute: wait
  })

  it('a lost cancel (by oid or by cloid) whose target is still open once the envelope can no longer execute is final as notexecuted; before that it waits', async () => {
    j = openJournalFile(':memory:')
    const byOid = entry({ type: 'cancel', market_id: '1', oid: '7' }, 'unknown', 50_000)
    const byCloid = entry({ type: 'cancel', market_id: '1', cloid: '0x' + 'cd'.repeat(16) }, 'unknown', 50_000)
    let now = 40_000
    let blockTimeMs: number | null = 39_000
    const r = new TradeReconciler({
      network: 'sandbox',
      journal: j,
      reads: reads({
        orderStatus: async () => ({ found: true, status: 'partiallyfilledresting', filledQty: '0.1' }),
        queryStatus: async () => ({ height: 20_000n, timeMs: blockTimeMs, earliestRetainedHeight: 10_001n }),
      }),
      scheduler: sched,
      now: () => now,
      expiryGraceMs: 1000,
    })
    await r.reconcileOnce()
    for (const s of [byOid, byCloid]) expect(j.get(s.id)!.state).toBe('unknown') // before expiry it may still run
    // Past expiry by the local clock, but the service's view is still at a block before it: wait.
    now = 60_000
    blockTimeMs = 49_000
    await r.reconcileOnce()
    for (const s of [byOid, byCloid]) expect(j.get(s.id)!.state).toBe('unknown')
    blockTimeMs = 50_500
    await r.reconcileOnce()
    expect(j.get(byOid.id)).toMatchObject({ state: 'reconciled', finalStatus: 'notexecuted' })
    expect(j.history(byOid.id).at(-1)?.note).toMatch(/oid 7: still partiallyfilledresting/)
    expect(j.get(byCloid.id)).toMatchObject({ state: 'reconciled', finalStatus: 'notexecuted' })
    expect(j.history(byCloid.id).at(-1)?.note).toMatch(/cloid 0xcdcd.*still partiallyfilledresting/)
  })

  it('the nonce window bounds an envelope without expires_after_ms: 2 days after its nonce it can no longer execute', async () => {
    j = openJournalFile(':memory:')
    const nonce = 1_000_000
    const s = j.record({
      channel: 'trade',
      key: 'local',
      network: 'sandbox',
      account: OWNER,
      signer: OWNER,
      actionType: 'cancel',
      summary: '',
      nonce: String(seq++),
      body: JSON.stringify({ action: { type: 'cancel', market_id: '1', oid: '7' }, nonce: String(nonce), signature: '0x' }),
      submitHeight: '15000',
    })
    j.update(s.id, { state: 'sent' })
    j.update(s.id, { state: 'unknown', code: 'NodeUnreachable' })
    let blockTimeMs = nonce + NONCE_MAX_AGE_MS - 1
    const r = new TradeReconciler({
      network: 'sandbox',
      journal: j,
      reads: reads({
        orderStatus: async () => ({ found: true, status: 'open', filledQty: '0' }),
        queryStatus: async () => ({ height: 20_000n, timeMs: blockTimeMs, earliestRetainedHeight: 10_001n }),
      }),
      scheduler: sched,
      now: () => blockTimeMs,
    })
    await r.reconcileOnce()
    expect(j.get(s.id)!.state).toBe('unknown')
    blockTimeMs = nonce + NONCE_MAX_AGE_MS + 1
    await r.reconcileOnce()
    expect(j.get(s.id)).toMatchObject({ state: 'reconciled', finalStatus: 'notexecuted' })
  })

  it('an empty market after a lost cancel-all is a success', async () => {
    j = openJournalFile(':memory:')
    const s = entry({ type: 'cancelAll', market_id: '2' }, 'unknown', 1000)
    const r = new TradeReconciler({ network: 'sandbox', journal: j, reads: reads(), scheduler: sched, now: () => 100_000 })
    await r.reconcileOnce()
    expect(j.get(s.id)).toMatchObject({ state: 'reconciled', finalStatus: 'nothingopen' })
  })

  it('a withdraw is settled by its withdraw record (3-day retention) even past the lookback window', async () => {
    j = openJournalFile(':memory:')
    const a = entry({ type: 'withdraw', cloid: CL, withdraw_nonce: '77' }, 'unknown', 1000, OWNER, '1')
    const b = entry({ type: 'withdraw', cloid: '0x' + 'cd'.repeat(16), withdraw_nonce: '78' }, 'unknown', 1000, OWNER, '1')
    const r = new TradeReconciler({
      network: 'sandbox',
      journal: j,
      reads: reads({ withdrawNonces: async () => ['77'] }),
      scheduler: sched,
      now: () => 100_000,
    })
    await r.reconcileOnce()
    expect(j.get(a.id)).toMatchObject({ state: 'reconciled', finalStatus: 'success' })
    expect(j.get(b.id)).toMatchObject({ state: 'reconciled', finalStatus: 'notexecuted' })
  })

  it('background reconciliation keeps running on its period after a kick', async () => {
    vi.useFakeTimers()
    try {
      j = openJournalFile(':memory:')
      let passes = 0
      const r = new TradeReconciler({ network: 'sandbox', journal: j, reads: reads(), scheduler: sched, now: () => 0 })
      const orig = r.reconcileOnce.bind(r)
      r.reconcileOnce = () => (passes++, orig())
      r.start(1000)
      await vi.advanceTimersByTimeAsync(10)
      expect(passes).toBe(1)
      r.kick()
      await vi.advanceTimersByTimeAsync(10)
      expect(passes).toBe(2)
      // Nothing pending: the idle period is 5 x 1000 ms, and it keeps going.
      await vi.advanceTimersByTimeAsync(5000)
      expect(passes).toBe(3)
      r.kick()
      r.kick()
      await vi.advanceTimersByTimeAsync(10)
      expect(passes).toBe(4)
      await vi.advanceTimersByTimeAsync(10_000)
      expect(passes).toBe(6)
      await r.stop()
      await vi.advanceTimersByTimeAsync(20_000)
      expect(passes).toBe(6)
    } finally {
      vi.useRealTimers()
    }
  })
})
