import { afterEach, describe, expect, it } from 'vitest'
import { openJournalFile, type Journal } from '../../journal'
import { TradeReconciler, type TradeReads } from './reconciler'
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
    ...over,
  }
}

let seq = 1
function entry(action: Record<string, unknown>, state: 'signed' | 'sent' | 'unknown', expires = 10_000, signer = OWNER) {
  const body = JSON.stringify({ action, nonce: String(Math.floor(Math.random() * 1e9)), expires_after_ms: String(expires), signature: '0x' })
  const s = j.record({ channel: 'trade', key: (action.cloid as string) ?? 'local', network: 'sandbox', account: OWNER, signer, actionType: String(action.type), summary: '', nonce: String(seq++), body })
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
    expect(lanes).toEqual(['reconcile'])
    expect(j.get(s.id)).toMatchObject({ state: 'reconciled', finalStatus: 'ok', code: 'NodeUnreachable' })
  })

  it('records an execution error code as final status', async () => {
    j = openJournalFile(':memory:')
    const s = entry({ type: 'repay', cloid: CL }, 'unknown')
    const r = new TradeReconciler({ network: 'sandbox', journal: j, reads: reads({ txStatusByCloid: async () => ({ found: true, status: 'invalidrepay', actionType: 'repay' }) }), scheduler: sched, now: () => 0 })
    await r.reconcileOnce()
    expect(j.get(s.id)).toMatchObject({ state: 'reconciled', finalStatus: 'invalidrepay', code: 'invalidrepay' })
  })

  it('an order is resolved with its order status', async () => {
    j = openJournalFile(':memory:')
    const s = entry({ type: 'order', market_id: '1', cloid: CL }, 'unknown')
    const r = new TradeReconciler({
      network: 'sandbox',
      journal: j,
      reads: reads({ txStatusByCloid: async () => ({ found: true, status: 'ok', actionType: 'order' }), orderStatus: async () => ({ found: true, status: 'partiallyfilledresting', filledQty: '1' }) }),
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
    const r = new TradeReconciler({ network: 'sandbox', journal: j, reads: reads(), scheduler: sched, now: () => t, minAgeMs: 1000, inFlight: new Set([b.id]) })
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
    expect(j.get(cancelAll.id)).toMatchObject({ state: 'reconciled', finalStatus: 'ordersstillopen' })
    expect(j.get(cancel.id)).toMatchObject({ state: 'reconciled', finalStatus: 'cancelled' })
  })

  it('a failing read counts as failed and keeps the entry for the next pass', async () => {
    j = openJournalFile(':memory:')
    const s = entry({ type: 'settle', cloid: CL }, 'unknown')
    const r = new TradeReconciler({ network: 'sandbox', journal: j, reads: reads({ txStatusByCloid: async () => Promise.reject(new Error('503')) }), scheduler: sched, now: () => 0 })
    expect(await r.reconcileOnce()).toMatchObject({ failed: 1, pending: 1 })
    expect(j.get(s.id)!.state).toBe('unknown')
  })
})
