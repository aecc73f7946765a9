import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type {
  AccountDetailView,
  AgentSlotsView,
  CreditHealthView,
  EarnOverviewView,
  OverviewView,
  PreviewView,
  WriteOutcome,
} from '../../../contract/types'
import { devOwner } from '../../../../sandbox/scenario/dev-keys'
import { parseDecimal, parseSignedDecimal } from '../../money/decimal'
import { startDeskOnSandbox, TEST_PASSPHRASE, type DeskOnSandbox } from '../../../testing/desk-on-sandbox'

/**
 * Every screen follows writes by push: after each write the test only listens to pushed events
 * (`state.account`, `state.overview`, `state.earn`); it never calls a read channel again.
 */
describe('live state pushed after writes (no re-read by the caller)', () => {
  let d: DeskOnSandbox
  const accounts: AccountDetailView[] = []
  const overviews: OverviewView[] = []
  const earns: EarnOverviewView[] = []
  let stopConfirm: () => void = () => {}
  const addr = (i: number) => devOwner(i).address.toLowerCase()

  beforeAll(async () => {
    d = await startDeskOnSandbox({ sandbox: { markStepBps: 5 } })
    await d.call('vault.create', { passphrase: TEST_PASSPHRASE })
    await d.call('accounts.importSandboxKeys')
    stopConfirm = d.autoConfirm()
    d.core.events.subscribe((event, payload) => {
      if (event === 'state.account') accounts.push(payload as AccountDetailView)
      if (event === 'state.overview') overviews.push(payload as OverviewView)
      if (event === 'state.earn') earns.push(payload as EarnOverviewView)
    })
  }, 30_000)
  afterAll(async () => {
    stopConfirm()
    await d?.close()
  })

  const latest = (a: string) => [...accounts].reverse().find((v) => v.account.address === a)
  const avail = (v: AccountDetailView | undefined, assetId: number) => v?.balances.find((b) => b.assetId === assetId)?.available
  const atoms = (x: string | undefined) => parseDecimal(x ?? '0', 8)

  it('an account page is built from live state quickly and says how old each part is', async () => {
    await d.call('portfolio.overview')
    const t0 = Date.now()
    const v = await d.call<AccountDetailView>('account.detail', { address: devOwner(0).address })
    expect(Date.now() - t0).toBeLessThan(1500)
    expect(v.source).toBe('live')
    expect(v.ages!.balances).not.toBeNull()
    expect(v.ages!.openOrders).not.toBeNull()
    expect(v.balances.length).toBeGreaterThan(0)
  })

  it('previews come from live state quickly and state how old their data is', async () => {
    const t0 = Date.now()
    const p = await d.call<PreviewView>('settle.preview', { creditAccount: addr(3), cashAccount: addr(0), assetId: 3, amount: '0.01' })
    expect(Date.now() - t0).toBeLessThan(1500)
    expect(p.dataMaxAgeMs).toBe(30_000)
    expect(p.dataAgeMs).not.toBeNull()
    expect(p.dataAgeMs!).toBeLessThanOrEqual(30_000)
    const t = await d.call<PreviewView>('transfer.preview', { from: addr(0), to: addr(2), assetId: 1, amount: '1' })
    expect(t.dataAgeMs).not.toBeNull()
  })

  it('transfer: both accounts and the overview reach their final balances by push', async () => {
    const from = addr(0)
    const to = addr(2)
    const [a, b] = await Promise.all([
      d.call<AccountDetailView>('account.detail', { address: from }),
      d.call<AccountDetailView>('account.detail', { address: to }),
    ])
    const before = { from: atoms(avail(a, 1)), to: atoms(avail(b, 1)) }
    accounts.length = 0
    overviews.length = 0
    const out = await d.call<WriteOutcome>('transfer.submit', { from, to, assetId: 1, amount: '7.25' })
    expect(out.submission.state).toBe('accepted')
    const amt = parseDecimal('7.25', 8)
    await expect.poll(() => atoms(avail(latest(to), 1)), { timeout: 10_000 }).toBe(before.to + amt)
    await expect.poll(() => atoms(avail(latest(from), 1)), { timeout: 10_000 }).toBe(before.from - amt)
    const row = (o: OverviewView | undefined) =>
      o?.rows.find((r) => r.account.address === to)?.available.find((x) => x.assetId === 1)?.available
    await expect.poll(() => atoms(row(overviews.at(-1))), { timeout: 10_000 }).toBe(before.to + amt)
  })

  it('settle: the credit account and the cash account are pushed with their new state', async () => {
    const credit = addr(3)
    const cash = addr(0)
    const c = await d.call<AccountDetailView>('account.detail', { address: credit })
    const btcBefore = c.credit!.positions.find((p) => p.assetId === 3)!.actual
    const cashBefore = atoms(avail(await d.call<AccountDetailView>('account.detail', { address: cash }), 3))
    accounts.length = 0
    await d.call<WriteOutcome>('settle.submit', { creditAccount: credit, cashAccount: cash, assetId: 3, amount: '0.05' })
    await expect
      .poll(() => latest(credit)?.credit?.positions.find((p) => p.assetId === 3)?.actual, { timeout: 10_000 })
      .toBe(
        // settle moves the position toward zero by the amount
        (Number(btcBefore) - 0.05).toFixed(2).replace(/0+$/, '').replace(/\.$/, ''),
      )
    await expect.poll(() => atoms(avail(latest(cash), 3)), { timeout: 10_000 }).toBe(cashBefore + parseDecimal('0.05', 8))
  })

  it('orders: a placed order appears on the account page by push, and leaves it when cancelled', async () => {
    const who = addr(1)
    await d.call('account.detail', { address: who })
    accounts.length = 0
    const placed = await d.call<WriteOutcome>('orders.place', {
      account: who,
      marketId: '2',
      side: 'bid',
      orderType: 'limit',
      tif: 'gtc',
      price: '3000',
      quantity: '0.01',
    })
    expect(placed.submission.state).toBe('accepted')
    const oid = placed.leaves[0]!.oid!
    await expect.poll(() => latest(who)?.openOrders.some((o) => o.oid === oid), { timeout: 10_000 }).toBe(true)
    // The locked quote shows on the same page.
    expect(latest(who)!.balances.some((b) => b.locked !== '0')).toBe(true)
    accounts.length = 0
    await d.call<WriteOutcome>('orders.cancel', { account: who, marketId: '2', oid })
    await expect.poll(() => latest(who)?.openOrders.some((o) => o.oid === oid), { timeout: 10_000 }).toBe(false)
  })

  it('earn: a created withdrawal is pushed, a claimed one moves to its final state by push', async () => {
    const who = addr(2)
    await d.call('earn.overview', { account: who })
    earns.length = 0
    const w = await d.call<{ operationId: string; status: string }>('earn.create', {
      account: who,
      assetId: 1,
      amount: '5',
      type: 'scheduled',
    })
    await expect
      .poll(() => earns.some((e) => e.withdrawals.some((x) => x.operationId === w.operationId && x.status === 'queued')), {
        timeout: 10_000,
      })
      .toBe(true)
    d.sandbox.earn.makeClaimable(w.operationId)
    // The queue entry turns claimable by push (the follower re-reads while one is pending).
    await d.call('earn.overview', { account: who })
    earns.length = 0
    const claimed = await d.call<{ status: string }>('earn.claim', { account: who, operationId: w.operationId })
    expect(claimed.status).not.toBe('claimed')
    const status = () =>
      [...earns]
        .reverse()
        .find((e) => e.address.toLowerCase() === who)
        ?.withdrawals.find((x) => x.operationId === w.operationId)?.status
    await expect.poll(status, { timeout: 30_000, interval: 250 }).toBe('claimed')
  }, 40_000)

  it('agents: approving a key in a free slot updates the overview agent count and pushes the slots', async () => {
    const who = addr(2)
    const slots: AgentSlotsView[] = []
    const off = d.core.events.subscribe((e, p) => e === 'state.agents' && slots.push(p as AgentSlotsView))
    const count = (o: OverviewView | undefined) => o?.rows.find((r) => r.account.address === who)?.agentsInUse
    await expect.poll(async () => count(await d.call<OverviewView>('portfolio.overview')), { timeout: 10_000 }).toBe(0)
    overviews.length = 0
    slots.length = 0
    await d.call('agents.approve', { owner: who, slot: 1 })
    await expect.poll(() => count(overviews.at(-1)), { timeout: 10_000 }).toBe(1)
    // the slots themselves, read again after the write and pushed (the agents page follows them)
    await expect
      .poll(
        () =>
          slots
            .filter((v) => v.owner === who)
            .at(-1)
            ?.slots.find((x) => x.slot === 1)?.agent ?? null,
        { timeout: 10_000 },
      )
      .not.toBeNull()
    off()
  })

  it('credit health: asked for once, then pushed whenever the account moves (its page stays current)', async () => {
    const who = addr(3)
    const credits: CreditHealthView[] = []
    const off = d.core.events.subscribe((e, p) => e === 'state.credit' && credits.push(p as CreditHealthView))
    const first = await d.call<CreditHealthView>('credit.health', { address: who })
    const usdc = (v: CreditHealthView | undefined) => parseSignedDecimal(v?.positions.find((p) => p.assetId === 1)?.actual ?? '0', 8)
    const before = usdc(first)
    await d.call<WriteOutcome>('repay.submit', { cashAccount: addr(0), creditAccount: who, assetId: 1, amount: '3' })
    // the repay reduces the short by the amount
    await expect.poll(() => usdc(credits.filter((c) => c.address === who).at(-1)), { timeout: 10_000 }).toBe(before + parseDecimal('3', 8))
    off()
  })

  it('a second start paints the last known overview at once, with its age, before fresh values', async () => {
    const dataDir = d.dataDir
    await d.call('portfolio.overview')
    // A new core on the same data directory, on the production /info budget (1 request a second):
    // the network is slow to answer a whole overview, the cache is not.
    const again = await startDeskOnSandbox({ dataDir, ratePerSec: 1 })
    try {
      const pushed: OverviewView[] = []
      again.core.events.subscribe((e, p) => {
        if (e === 'state.overview') pushed.push(p as OverviewView)
      })
      await again.call('vault.unlock', { passphrase: TEST_PASSPHRASE })
      const t0 = Date.now()
      const first = await again.call<OverviewView>('portfolio.overview')
      expect(Date.now() - t0).toBeLessThan(1000)
      expect(first.rows.length).toBe(6)
      expect(first.source).toBe('cache')
      expect(first.rows.every((r) => r.fetchedAt !== null && r.stale)).toBe(true)
      expect(first.totalUsdAge!.asOf).toBeGreaterThan(0)
      await expect.poll(() => pushed.some((p) => p.source === 'live' && p.asOf > first.asOf), { timeout: 25_000 }).toBe(true)
    } finally {
      await again.close()
    }
  }, 40_000)
})

describe('on the production /info budget (1 request a second)', () => {
  let d: DeskOnSandbox
  let stop: () => void = () => {}
  beforeAll(async () => {
    d = await startDeskOnSandbox({ ratePerSec: 1 })
    await d.call('vault.create', { passphrase: TEST_PASSPHRASE })
    await d.call('accounts.importSandboxKeys')
    stop = d.autoConfirm()
    await d.call('portfolio.overview')
  }, 60_000)
  afterAll(async () => {
    stop()
    await d?.close()
  })

  it('an account page and a settle preview answer from live state, not after queueing on /info', async () => {
    const timed = async (f: () => Promise<unknown>) => {
      const t0 = Date.now()
      await f()
      return Date.now() - t0
    }
    // The first preview reads the asset list once (kept five minutes); later ones read no account data.
    await d.call('settle.preview', { creditAccount: devOwner(3).address, cashAccount: devOwner(0).address, assetId: 3, amount: '0.01' })
    const page = await timed(() => d.call('account.detail', { address: devOwner(0).address }))
    const preview = await timed(() =>
      d.call('settle.preview', { creditAccount: devOwner(3).address, cashAccount: devOwner(0).address, assetId: 3, amount: '0.02' }),
    )
    console.log(`1 req/s budget: account page ${page} ms, settle preview ${preview} ms`)
    expect(page).toBeLessThan(1500)
    expect(preview).toBeLessThan(1500)
  }, 60_000)
})
