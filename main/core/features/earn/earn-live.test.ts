import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import type { EarnOverviewView } from '../../../contract/types'
import { EventHub } from '../../ipc/events'
import type { Submission } from '../../journal'
import type { NetworkSession } from '../../session'
import { EarnLive } from './earn-live'
import { earnOverview } from './earn.service'
import { earnOverviewView } from './earn.views'

const USER = '0x' + 'ab'.repeat(20)

/** A session whose earn pool answers from `balance` (earn atoms of one asset), and whose journal the test drives. */
function fakeSession(opts: { vault?: boolean } = {}) {
  const journalListeners = new Set<(s: Submission) => void>()
  const state = { balance: '100000000' }
  const account = vi.fn(async () => ({
    next_user_nonce: 1,
    balances: [
      {
        asset_id: 1,
        earn_balance: state.balance,
        in_queue_balance: '0',
        withdraw_locked_balance: '0',
        lifetime_deposit: '0',
        lifetime_yield: '0',
        lifetime_withdraw: '0',
        active_withdraw_operation_id: '',
      },
    ],
  }))
  const earn = {
    config: async () => ({
      withdrawal_paused: false,
      assets: [
        {
          asset_id: 1,
          symbol: 'USDC',
          balance_decimals: 8,
          scheduled_withdraw_enabled: true,
          instant_withdraw_enabled: true,
          instant_fee_bps: 10,
          withdraw_pending_seconds: 60,
          min_withdraw_amount: '0',
          max_single_withdraw_amount: '0',
        },
      ],
    }),
    account,
    withdrawals: async () => [],
  }
  const earnCtx = { earn, hasOwnerKey: () => true, now: () => Date.now() }
  const s = {
    name: 'sandbox',
    journal: { onChange: (l: (s: Submission) => void) => (journalListeners.add(l), () => journalListeners.delete(l)) },
    write: () => {
      if (opts.vault === false) throw new Error('no vault')
      return { earnCtx }
    },
  } as unknown as NetworkSession
  return {
    s,
    state,
    account,
    view: async () => earnOverviewView(await earnOverview(earnCtx as never, USER), Date.now()),
    write: (sub: Partial<Submission> = {}) => {
      for (const l of journalListeners)
        l({
          network: 'sandbox',
          channel: 'earn',
          account: USER,
          state: 'accepted',
          actionType: 'earnRequest',
          body: '{}',
          ...sub,
        } as Submission)
    },
  }
}

function setup(opts: { vault?: boolean } = {}) {
  const f = fakeSession(opts)
  let opened: (s: NetworkSession) => void = () => {}
  const events = new EventHub()
  const pushed: EarnOverviewView[] = []
  events.subscribe((e, p) => e === 'state.earn' && pushed.push(p as EarnOverviewView))
  const live = new EarnLive({ sessions: { onOpened: (l) => ((opened = l), () => {}) }, events, now: () => Date.now() })
  opened(f.s)
  return { f, live, pushed }
}

describe('the earn pool followed by the earn feature (it has no stream)', () => {
  beforeEach(() => {
    vi.useFakeTimers()
  })
  afterEach(() => {
    vi.useRealTimers()
  })

  it('after an earn write its account is re-read quickly; only a change is pushed; the follow ends after 30 s', async () => {
    const { f, live, pushed } = setup()
    f.write()
    await vi.advanceTimersByTimeAsync(250)
    expect(f.account).toHaveBeenCalledTimes(1)
    // the first read after a write is news (nothing shown yet)
    expect(pushed).toHaveLength(1)
    await vi.advanceTimersByTimeAsync(2100)
    expect(f.account).toHaveBeenCalledTimes(2)
    expect(pushed).toHaveLength(1) // unchanged: not pushed again
    f.state.balance = '50000000'
    await vi.advanceTimersByTimeAsync(2100)
    expect(pushed).toHaveLength(2)
    expect(pushed[1]!.assets[0]!.earnBalance).toBe('0.5')
    await vi.advanceTimersByTimeAsync(40_000)
    const reads = f.account.mock.calls.length
    await vi.advanceTimersByTimeAsync(60_000)
    expect(f.account.mock.calls.length).toBe(reads)
    live.close()
  })

  it('an earn page the operator opened is re-read slowly while on screen, and no more after ten minutes', async () => {
    const { f, live, pushed } = setup()
    live.shown(await f.view())
    await vi.advanceTimersByTimeAsync(9_000)
    expect(f.account).toHaveBeenCalledTimes(1) // the screen's own read only
    await vi.advanceTimersByTimeAsync(1_500)
    expect(f.account).toHaveBeenCalledTimes(2)
    expect(pushed).toHaveLength(0) // nothing moved
    await vi.advanceTimersByTimeAsync(10 * 60_000)
    const reads = f.account.mock.calls.length
    expect(reads).toBeGreaterThan(50)
    await vi.advanceTimersByTimeAsync(60_000)
    expect(f.account.mock.calls.length).toBe(reads)
    live.close()
  })

  it('its own pushes do not keep a page on screen (no self-subscription)', async () => {
    const { f, live } = setup()
    f.write()
    await vi.advanceTimersByTimeAsync(35_000)
    const reads = f.account.mock.calls.length
    // were a push of its own taken for the screen's, the slow poll would go on for ten minutes
    await vi.advanceTimersByTimeAsync(60_000)
    expect(f.account.mock.calls.length).toBe(reads)
    live.close()
  })

  it('writes of other channels or networks are not followed; without a vault nothing is read', async () => {
    const a = setup()
    a.f.write({ channel: 'trade' })
    a.f.write({ network: 'mainnet' })
    await vi.advanceTimersByTimeAsync(5_000)
    expect(a.f.account).not.toHaveBeenCalled()
    a.live.close()
    const b = setup({ vault: false })
    b.f.write()
    await vi.advanceTimersByTimeAsync(5_000)
    expect(b.f.account).not.toHaveBeenCalled()
    expect(b.pushed).toHaveLength(0)
    b.live.close()
  })

  it('close stops the follow: no read after it', async () => {
    const { f, live } = setup()
    f.write()
    live.close()
    await vi.advanceTimersByTimeAsync(5_000)
    expect(f.account).not.toHaveBeenCalled()
  })
})
