import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Address } from 'viem'
import { startSandbox, type SandboxHandle } from '../../../../sandbox/index'
import { devOwner } from '../../../../sandbox/scenario/dev-keys'
import { sandboxNetwork, type ResolvedNetwork } from '../../config/networks'
import { InfoClient } from '../../exchange/info/client'
import { RateScheduler } from '../../exchange/scheduler'
import { postJson, TransportFailure, type HttpPoster } from '../../exchange/trade/http-post'
import { type Journal } from '../../journal'
import { openTempJournal } from '../../journal/testing/temp-journal'
import { earnOverview } from './earn.service'
import { cancelEarnWithdrawal, claimEarnWithdrawal, createEarnWithdrawal } from '../../../testing/direct-writes'
import { DevVault } from '../../../testing/dev-vault'
import { WriteSide } from '../../session/write-side'

/**
 * Earn writes under a high rate of 131002 answers, lost answers (the write executed, the reply
 * never arrived) and the pool's own 131006-after-executing fault: the journal ends final, every
 * withdrawal the pool holds is in the journal, none twice, and every claim went out as one
 * byte-identical body.
 */
let sb: SandboxHandle
let journal: Journal
let session: WriteSide
const vault = new DevVault()
const users = [devOwner(0).address, devOwner(2).address] as Address[]

// Deterministic pseudo-random fault schedule.
let seed = 7
const rnd = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31

const faulty: HttpPoster = async (url, body, opts) => {
  if (!url.includes('/api/v3/earn')) return postJson(url, body, opts)
  const x = rnd()
  if (x < 0.25) return { status: 200, headers: {}, text: JSON.stringify({ code: 131002, message: 'backend unavailable' }) }
  const res = await postJson(url, body, opts)
  if (x < 0.4 && /"type":"(createWithdrawal|claimWithdrawal|cancelWithdrawal)"/.test(body))
    throw new TransportFailure('afterWrite', 'reset', 'answer lost')
  return res
}

beforeAll(async () => {
  sb = await startSandbox({ seed: true, blockMs: 20, botIntervalMs: 0, rateLimits: false, earnPendingSeconds: 1, earnPayoutStageMs: 50 })
  for (const i of [0, 2]) vault.addOwner(devOwner(i).privateKey)
  journal = openTempJournal()
  const network = { ...sandboxNetwork(), tradingUrl: sb.tradingUrl, wsUrl: sb.wsUrl, earnUrl: sb.earnUrl } as ResolvedNetwork
  const info = new InfoClient({ baseUrl: sb.tradingUrl, scheduler: new RateScheduler({ ratePerSec: 1000 }) })
  session = new WriteSide({ network, journal, vault, info, post: faulty, tradeScheduler: new RateScheduler({ ratePerSec: 1000 }) })
})

afterAll(async () => {
  await session?.stop()
  await journal?.close()
  await sb?.stop()
})

async function settle<T>(p: () => Promise<T>): Promise<T | { failed: string }> {
  try {
    return await p()
  } catch (e) {
    return { failed: (e as { code?: string }).code ?? 'error' }
  }
}

describe('earn writes under injected faults', () => {
  it('lose nothing, double nothing, and never sign a second claim', async () => {
    for (const u of users) {
      const ov = await earnOverview(session.earnCtx, u)
      const active = ov.assets.find((a) => a.symbol === 'USDC')?.activeOperationId
      if (active) await settle(() => cancelEarnWithdrawal(session.earnCtx, { user: u, operationId: active }))
    }
    // The pool itself answers 131006 after executing the next write.
    sb.earn.faults.timeout = 'executed'
    const created = await Promise.all(
      users.map((u) => settle(() => createEarnWithdrawal(session.earnCtx, { user: u, asset: 'USDC', amount: '10', type: 'scheduled' }))),
    )
    sb.earn.faults.timeout = null
    for (let i = 0; i < 30 && journal.unresolved('sandbox').length > 0; i++) await session.reconcileAll()
    await new Promise((r) => setTimeout(r, 1100))
    for (const u of users) {
      const ov = await earnOverview(session.earnCtx, u)
      const w = ov.withdrawals.find((x) => x.status === 'queued')
      if (w) {
        await settle(() => claimEarnWithdrawal(session.earnCtx, { user: u, operationId: w.operationId }))
        await settle(() => claimEarnWithdrawal(session.earnCtx, { user: u, operationId: w.operationId }))
      }
    }
    for (let i = 0; i < 30 && journal.unresolved('sandbox').length > 0; i++) await session.reconcileAll()
    expect(journal.unresolved('sandbox')).toEqual([])
    expect(created.length).toBe(2)

    const truth = sb.earn.groundTruth().withdrawals
    const creates = journal.list({ channel: 'earn', actionType: 'createWithdrawal' })
    const effective = creates.filter(
      (e) => e.state === 'accepted' || (e.state === 'reconciled' && e.finalStatus !== 'notexecuted' && e.finalStatus !== 'notsent'),
    )
    for (const u of users) {
      const mine = truth.filter(
        (w) => w.user_address.toLowerCase() === u.toLowerCase() && w.created_at_unix_ms > 0 && w.gross_amount === '1000000000',
      )
      const journaled = effective.filter((e) => e.account === u.toLowerCase())
      // Everything the pool created from this run is in the journal as executed, once.
      expect(mine.map((w) => w.operation_id).sort()).toEqual(journaled.map((e) => e.key).sort())
      expect(new Set(journaled.map((e) => e.key)).size).toBe(journaled.length)
    }
    const claims = journal.list({ channel: 'earn', actionType: 'claimWithdrawal' })
    const byOp = new Map<string, Set<string>>()
    for (const c of claims) byOp.set(c.key, (byOp.get(c.key) ?? new Set()).add(c.body))
    for (const [op, bodies] of byOp) {
      expect(bodies.size, `claims of ${op} were signed ${bodies.size} times`).toBe(1)
      const w = truth.find((x) => x.operation_id === op)!
      expect(w.claim_digest).not.toBeNull()
    }
    // The run did reach the hard cases: both creates and both claims took effect despite the faults.
    expect(effective).toHaveLength(2)
    expect(byOp.size).toBe(2)
    expect(journal.list({ channel: 'earn' }).some((e) => e.state === 'reconciled')).toBe(true)
    expect(sb.earn.groundTruth().identity_violations).toEqual([])
  })
})
