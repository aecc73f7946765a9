import { writeFileSync } from 'node:fs'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { devOwner } from '../../../sandbox/scenario/dev-keys'
import type { AgentSlotView, EarnOverviewView, WriteOutcome } from '../../contract/types'
import { startDeskOnSandbox, TEST_PASSPHRASE, type DeskOnSandbox } from '../../testing/desk-on-sandbox'
import { exchangeIdentity, exchangeKey, exchangePolicyPath, exchangeTag } from '../policy'
import { USD_DECIMALS } from '../session'
import { WRITE_KINDS, type SignedWrite, type WriteDecision, type WriteGate, type WriteIntent, type WriteKind } from './decision'

const DEST = '0x52908400098527886E0F7030069857D2E4169EE7' // in the address book below, nobody's account
const owner = (i: number) => devOwner(i).address.toLowerCase()
const usd = (whole: bigint) => whole * 10n ** BigInt(USD_DECIMALS)

/** A decision step that records every intent and answers as told. */
class RecordingGate implements WriteGate {
  intents: WriteIntent[] = []
  signed: SignedWrite[] = []
  settledStates: string[] = []
  answer: (i: WriteIntent) => WriteDecision = () => ({ verdict: 'allow' })
  stopSend: string | null = null
  async decide(i: WriteIntent): Promise<WriteDecision> {
    this.intents.push(i)
    return this.answer(i)
  }
  async beforeSend(s: SignedWrite): Promise<void> {
    this.signed.push(s)
    if (this.stopSend) throw new Error(this.stopSend)
  }
  /** Each send the pipeline announced (team mode renews its execution lease meanwhile), and whether it ended. */
  sends: { kind: WriteKind; cloid: string; ended: boolean }[] = []
  sending(i: WriteIntent): () => void {
    const s = { kind: i.kind, cloid: i.cloid, ended: false }
    this.sends.push(s)
    return () => (s.ended = true)
  }
  async settled(_i: WriteIntent, o: { state: string }): Promise<void> {
    this.settledStates.push(o.state)
  }
  of(kind: WriteKind): WriteIntent[] {
    return this.intents.filter((i) => i.kind === kind)
  }
}

/**
 * The one write pipeline against the sandbox, through the app's channels: every write kind
 * reaches the decision step once with the intent that is then signed; a block or a proposal signs
 * nothing; a refusal before sending leaves the write unsent; a halt refuses before the decision.
 */
describe('the write pipeline (desk on the sandbox)', () => {
  let d: DeskOnSandbox
  let stop: () => void
  const gate = new RecordingGate()
  const truth = () => d.sandbox.trading.groundTruth()
  const journaled = async () => (await d.call<unknown[]>('journal.query', {})).length
  const sandboxExchange = () => exchangeIdentity({ chainId: 424242, tradingUrl: d.sandbox.tradingUrl, earnUrl: d.sandbox.earnUrl })

  beforeAll(async () => {
    // O0's seeded earn withdrawal stays queued (cancelable) for the file; O1's is seeded claimable.
    d = await startDeskOnSandbox({ sandbox: { earnPendingSeconds: 600 } })
    await d.call('vault.create', { passphrase: TEST_PASSPHRASE })
    await d.call('accounts.importSandboxKeys')
    stop = d.autoConfirm()
    d.core.setWriteGate(gate)
    // A matured 1.5 s cooling-off (as the engine persists it), so the withdrawal's address-book entry is usable in this run.
    writeFileSync(
      exchangePolicyPath(d.dataDir, exchangeTag(sandboxExchange())),
      JSON.stringify({
        version: 1,
        network: exchangeKey(sandboxExchange()),
        rules: { 'cooling-off': '1500' },
        pending: [],
        addresses: [],
        halted: null,
        exchange: { ...sandboxExchange(), kind: 'sandbox' },
        aliases: ['sandbox'],
      }),
    )
    await d.call('addresses.add', { label: 'cold', address: DEST, chainId: '1', passphrase: TEST_PASSPHRASE })
    await new Promise((r) => setTimeout(r, 1600))
  })
  afterAll(async () => {
    stop?.()
    await d?.close()
  })

  it('every write kind reaches the decision once, with the intent that is then signed and sent', async () => {
    gate.intents = []
    const settle = await d.call<WriteOutcome>('settle.submit', {
      creditAccount: owner(3),
      cashAccount: owner(0),
      assetId: 3,
      amount: '0.01',
    })
    const repay = await d.call<WriteOutcome>('repay.submit', { cashAccount: owner(0), creditAccount: owner(3), assetId: 1, amount: '10' })
    const transfer = await d.call<WriteOutcome>('transfer.submit', { from: owner(0), to: owner(2), assetId: 1, amount: '12.5' })
    const withdraw = await d.call<WriteOutcome>('withdraw.submit', {
      account: owner(0),
      assetId: 1,
      amount: '10',
      dstChainId: '1',
      dstAddress: DEST,
    })
    const target = '0x' + 'ab'.repeat(20)
    const activation = await d.call<WriteOutcome>('activate.submit', { account: owner(1), target, feeAssetId: 1 })
    await d.call<AgentSlotView>('agents.approve', { owner: owner(1), slot: 3 })
    const rotated = await d.call<{ slot: AgentSlotView }>('agents.rotate', { owner: owner(1), slot: 3 })
    await d.call<AgentSlotView>('agents.revoke', { owner: owner(1), slot: rotated.slot.slot })
    const placed = await d.call<WriteOutcome>('orders.place', {
      account: owner(0),
      marketId: '2',
      side: 'bid',
      orderType: 'limit',
      tif: 'gtc',
      price: '1000',
      quantity: '0.1',
    })
    await d.call<WriteOutcome>('orders.cancel', { account: owner(0), marketId: '2', oid: placed.leaves[0]!.oid! })
    await d.call<WriteOutcome>('orders.cancelAll', { account: owner(0), marketId: '2' })
    await d.call<WriteOutcome>('orders.place', {
      account: owner(0),
      marketId: '2',
      side: 'bid',
      orderType: 'limit',
      tif: 'gtc',
      price: '1001',
      quantity: '0.1',
    })
    await d.call<WriteOutcome[]>('orders.cancelEverything', { account: owner(0) })
    const active = (await d.call<EarnOverviewView>('earn.overview', { account: owner(0) })).withdrawals.find((w) => w.canCancel)!
    await d.call('earn.cancel', { account: owner(0), operationId: active.operationId })
    await d.call('earn.create', { account: owner(0), assetId: 1, amount: '100', type: 'instant' })
    const claimable = (await d.call<EarnOverviewView>('earn.overview', { account: owner(1) })).withdrawals.find((w) => w.canClaim)!
    await d.call('earn.claim', { account: owner(1), operationId: claimable.operationId })

    // Every send ran inside the gate's sending hook and ended it, earn writes too (their client resends until the deadline).
    expect(gate.sends.filter((x) => !x.ended)).toEqual([])
    for (const k of ['earn_request', 'earn_claim', 'earn_cancel', 'withdraw'] as const)
      expect(
        gate.sends.some((x) => x.kind === k),
        k,
      ).toBe(true)
    // Every exchange write kind (halt and resume are the desk's own switches, not exchange writes).
    const exchangeKinds = WRITE_KINDS.filter((k) => k !== 'halt' && k !== 'resume')
    for (const k of exchangeKinds) expect(gate.of(k).length, k).toBeGreaterThan(0)
    for (const i of gate.intents) {
      expect(i.network).toBe('sandbox')
      expect(i.exchange).toBe(exchangeKey(sandboxExchange()))
      expect(i.title.length).toBeGreaterThan(0)
      expect(i.preview.length).toBeGreaterThan(0)
    }
    // Once per write: each signed write's cloid was decided exactly once (writes that cannot carry one have '').
    const cloids = gate.intents.map((i) => i.cloid).filter((c) => c !== '')
    expect(new Set(cloids).size).toBe(cloids.length)
    expect(gate.of('settle')).toHaveLength(1)
    expect(gate.of('order')).toHaveLength(2)
    expect(gate.of('earn_request')).toHaveLength(1)
    // The rotation is decided once as a rotation; the old slot's revoke is its own (open) write.
    expect(gate.of('agent_rotate')).toHaveLength(1)
    expect(gate.of('agent_revoke')).toHaveLength(2)

    const [s] = gate.of('settle')
    expect(s).toMatchObject({
      account: owner(3),
      signer: owner(3),
      cloid: settle.submission.cloid,
      action: { type: 'settle', asset_id: '3', amount: '1000000', cash_account: owner(0), cloid: settle.submission.cloid },
    })
    expect(s!.usdAtoms).toBeGreaterThan(0n)
    expect(gate.of('repay')[0]).toMatchObject({
      account: owner(0),
      cloid: repay.submission.cloid,
      action: { type: 'repay', margin_account: owner(3) },
    })
    // A transfer and a withdrawal carry their USD value at the marks (USDC at 1 USD) and their destination.
    const [t] = gate.of('transfer')
    expect(t).toMatchObject({
      account: owner(0),
      signer: owner(0),
      cloid: transfer.submission.cloid,
      destination: { address: owner(2) },
      action: { type: 'transfer', to: owner(2), asset_id: '1', amount: '1250000000' },
    })
    expect(t!.usdAtoms).toBe(usd(12n) + usd(1n) / 2n)
    const [w] = gate.of('withdraw')
    expect(w).toMatchObject({
      account: owner(0),
      cloid: withdraw.submission.cloid,
      destination: { address: DEST.toLowerCase(), chainId: '1' },
      action: { type: 'withdraw', dst_address: DEST.toLowerCase(), amount: '1000000000' },
    })
    expect(w!.usdAtoms).toBe(usd(10n))
    expect(gate.of('activation')[0]).toMatchObject({
      account: owner(1),
      cloid: activation.submission.cloid,
      action: { type: 'activateFor', target_address: target },
    })
    expect(gate.of('order')[0]).toMatchObject({
      account: owner(0),
      cloid: placed.submission.cloid,
      action: { type: 'order', market_id: '2', price: '1000', quantity: '0.1' },
    })
    expect(gate.of('order')[0]!.usdAtoms).toBe(usd(100n))
    expect(gate.of('agent_approve')[0]).toMatchObject({ account: owner(1), signer: owner(1), action: { type: 'approveAgent', slot_id: 3 } })
    expect(gate.of('earn_request')[0]).toMatchObject({
      account: owner(0),
      cloid: expect.stringMatching(new RegExp(`^withdraw:${owner(0)}:\\d+$`)),
      action: { type: 'createWithdrawal', withdraw_type: 'instant' },
    })
    expect(gate.of('earn_claim')[0]).toMatchObject({ account: owner(1), cloid: claimable.operationId })
    expect(gate.of('earn_cancel')[0]).toMatchObject({ account: owner(0), cloid: active.operationId })
    // What was decided is what the exchange executed.
    for (const c of [settle, repay, transfer, withdraw, activation, placed])
      expect(
        truth().filter((x) => x.cloid === c.submission.cloid),
        c.submission.actionType,
      ).toHaveLength(1)
  })

  it('a block refuses with a typed error before anything is signed; nothing reaches the exchange or the journal', async () => {
    gate.answer = (i) =>
      i.kind === 'transfer' ? { verdict: 'block', code: 'OverTeamLimit', reason: 'above the team limit' } : { verdict: 'allow' }
    try {
      const [t0, j0, s0] = [truth().length, await journaled(), gate.signed.length]
      const r = await d.core.dispatch('transfer.submit', { from: owner(0), to: owner(2), assetId: 1, amount: '1' }, { host: 'test' })
      expect(r.ok).toBe(false)
      if (!r.ok) expect(r.error).toMatchObject({ code: 'WriteBlocked', details: { code: 'OverTeamLimit', kind: 'transfer' } })
      expect([truth().length, await journaled(), gate.signed.length]).toEqual([t0, j0, s0])
    } finally {
      gate.answer = () => ({ verdict: 'allow' })
    }
  })

  it("a proposal returns 'proposed' with its id and signs nothing", async () => {
    gate.answer = () => ({ verdict: 'propose', proposalId: 'p-17', needs: '2 of 3 approvers', expiresAt: Date.now() + 3_600_000 })
    try {
      const [t0, j0, s0] = [truth().length, await journaled(), gate.signed.length]
      const out = await d.call<WriteOutcome>('transfer.submit', { from: owner(0), to: owner(2), assetId: 1, amount: '1' })
      expect(out.proposalId).toBe('p-17')
      expect(out.submission).toMatchObject({ state: 'proposed', id: '', actionType: 'transfer', account: owner(0) })
      expect(out.submission.cloid).toBe(gate.intents.at(-1)!.cloid)
      expect([truth().length, await journaled(), gate.signed.length]).toEqual([t0, j0, s0])
      // An operation whose result is not a write outcome says so, typed.
      const r = await d.core.dispatch('earn.create', { account: owner(2), assetId: 1, amount: '1', type: 'instant' }, { host: 'test' })
      expect(!r.ok && r.error).toMatchObject({ code: 'WriteProposed', details: { proposalId: 'p-17' } })
      expect(truth().length).toBe(t0)
    } finally {
      gate.answer = () => ({ verdict: 'allow' })
    }
  })

  it('a refusal before sending leaves the signed write unsent: the exchange never sees it and the journal says so', async () => {
    gate.stopSend = 'the approvals expired'
    try {
      const t0 = truth().length
      const r = await d.core.dispatch('transfer.submit', { from: owner(0), to: owner(2), assetId: 1, amount: '1' }, { host: 'test' })
      expect(!r.ok && r.error.code).toBe('WriteNotSent')
      const signed = gate.signed.at(-1)!
      expect(signed.intent.kind).toBe('transfer')
      expect(JSON.parse(signed.body)).toMatchObject({ action: { type: 'transfer', cloid: signed.intent.cloid } })
      await new Promise((res) => setTimeout(res, 300)) // a block or two: it would have executed by now
      expect(truth().length).toBe(t0)
      expect(truth().some((x) => x.cloid === signed.intent.cloid)).toBe(false)
      const [entry] = await d.call<{ id: string; state: string; finalStatus: string | null; history: { note: string | null }[] }[]>(
        'journal.query',
        { q: signed.intent.cloid },
      )
      expect(entry).toMatchObject({ id: String(signed.journalId), state: 'reconciled', finalStatus: 'notsent' })
      expect(entry!.history.at(-1)!.note).toContain('the approvals expired')
    } finally {
      gate.stopSend = null
    }
  })

  it('a halt refuses every halted kind before the decision; cancels still pass (they clear the book)', async () => {
    gate.intents = []
    await d.call('policy.halt')
    try {
      // The halt's own cancels are writes through the pipeline (the seeded books hold resting orders).
      expect(gate.intents.length).toBeGreaterThan(0)
      expect(gate.intents.every((i) => i.kind === 'cancel')).toBe(true)
      gate.intents = []
      const refusedCode = async (channel: string, args: unknown) => {
        const r = await d.core.dispatch(channel, args, { host: 'test' })
        return r.ok ? 'ok' : r.error.code
      }
      const halted: [string, unknown][] = [
        ['settle.submit', { creditAccount: owner(3), cashAccount: owner(0), assetId: 3, amount: '0.01' }],
        ['repay.submit', { cashAccount: owner(0), creditAccount: owner(3), assetId: 1, amount: '1' }],
        ['transfer.submit', { from: owner(0), to: owner(2), assetId: 1, amount: '1' }],
        ['withdraw.submit', { account: owner(0), assetId: 1, amount: '10', dstChainId: '1', dstAddress: DEST }],
        ['activate.submit', { account: owner(1), target: '0x' + 'cd'.repeat(20), feeAssetId: 1 }],
        ['agents.approve', { owner: owner(2), slot: 3 }],
        ['agents.rotate', { owner: owner(0), slot: 0 }],
        ['orders.place', { account: owner(0), marketId: '2', side: 'bid', orderType: 'limit', tif: 'gtc', price: '1000', quantity: '0.1' }],
        ['earn.create', { account: owner(2), assetId: 1, amount: '1', type: 'instant' }],
        ['earn.claim', { account: owner(1), operationId: `withdraw:${owner(1)}:0` }],
      ]
      for (const [channel, args] of halted) expect(await refusedCode(channel, args), channel).toBe('WritesHalted')
      expect(gate.intents).toEqual([])
      // A cancel still passes while halted (nothing left to cancel: the halt verified zero open orders).
      expect(await refusedCode('orders.cancelEverything', { account: owner(0) })).toBe('ok')
    } finally {
      await d.call('policy.resume', { passphrase: TEST_PASSPHRASE })
    }
  })
})
