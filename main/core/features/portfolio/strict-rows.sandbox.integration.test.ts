import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Address } from 'viem'
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts'
import { devOwner } from '../../../../sandbox/scenario/dev-keys'
import type { OverviewView } from '../../../contract/types'
import { demoAccounts, startDeskOnSandbox, TEST_PASSPHRASE, type DeskOnSandbox } from '../../../testing/desk-on-sandbox'
import { createDeskCore, type DeskCore } from '../../app/compose'
import { onDispatch, type DispatchEvent } from '../../exchange/scheduler'
import { headlessHostServices } from '../host'

/**
 * Strict-limits mode end to end (a whole desk against the sandbox enforcing the connection limits
 * the spec only counts, and its /info rate): every row of the overview is refreshed within a
 * bound, the account that does not exist on the exchange included (it used to be left out of the
 * refresher's plan: its row was never read again, and its first deposit showed a minute late); a
 * restart reads no identity nor agent slots an earlier run read within the hour (they held the
 * /info budget ahead of every balance). /info runs at 10 requests/s here so the test takes
 * seconds; a real network runs the same code at 1 request/s.
 */
const RATE = 10
const EXTRA = 10
/** How old a row's balances may be: the refresher re-reads a polled channel after 5 s, full pushes every 2 s. */
const AGE_BOUND_MS = 12_000
const UNFUNDED = devOwner(5).address.toLowerCase()

let d: DeskOnSandbox
let second: DeskCore | null = null
const extras: Address[] = []
let latest: OverviewView | null = null
const dispatched: DispatchEvent[] = []
const offDispatch = onDispatch((e) => dispatched.push(e))

function follow(core: DeskCore): void {
  core.events.subscribe((event, payload) => {
    if (event === 'state.overview') latest = payload as OverviewView
  })
}

async function call<T>(core: DeskCore, channel: string, args?: unknown): Promise<T> {
  const r = await core.dispatch(channel, args, { host: 'test' })
  if (!r.ok) throw new Error(`${channel}: ${r.error.code}: ${r.error.message}`)
  return r.value as T
}

/** The oldest row of the last overview pushed, and every row's age (ms). */
function ages(): { worst: number; of: Record<string, number> } {
  const now = Date.now()
  const of: Record<string, number> = {}
  let worst = 0
  for (const r of latest?.rows ?? []) {
    const age = r.fetchedAt === null ? Infinity : now - r.fetchedAt
    of[r.account.label] = age
    worst = Math.max(worst, age)
  }
  return { worst, of }
}

const rowOf = (address: string) => latest?.rows.find((r) => r.account.address === address.toLowerCase())

beforeAll(async () => {
  d = await startDeskOnSandbox({
    strictLimits: true,
    ratePerSec: RATE,
    overviewRefreshMs: 2000,
    sandbox: { rateLimits: { infoPerSec: RATE * 2, tradePerSec: 1000, signerPerSec: 1000 } },
  })
  const r = await fetch(`${d.sandbox.adminUrl}/faults`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ ws: { enforceConnectionLimits: true } }),
  })
  expect(r.status).toBe(200)
  await d.call('vault.create', { passphrase: TEST_PASSPHRASE })
  await d.call('accounts.importSandboxKeys') // six owners, 'Spare (unfunded)' among them
  for (let i = 0; i < EXTRA; i++) {
    const a = privateKeyToAccount(generatePrivateKey()).address.toLowerCase() as Address
    d.sandbox.trading.deposit(a, 1, 10_100_000_000n) // 101 USDC (the first deposit pays the activation fee)
    await d.call('accounts.watch', { address: a, label: `Extra ${String(i).padStart(2, '0')}` })
    extras.push(a)
  }
  follow(d.core)
  latest = await d.call<OverviewView>('portfolio.overview')
}, 60_000)

afterAll(async () => {
  offDispatch()
  await second?.close()
  await d?.close()
})

/** Never over the limits the sandbox enforces. */
function limitsKept(): void {
  const st = d.sandbox.ws.limitStats()
  expect(st.refused).toEqual({ tooMany: 0, tooManyNew: 0 })
  expect(st.maxOpenPerIp).toBe(1)
  expect(st.maxSubscriptions).toBeLessThanOrEqual(10)
}

describe(`strict limits, a whole desk of ${6 + EXTRA} accounts against the sandbox enforcing them`, () => {
  it('every row is refreshed within the bound, the account that does not exist included (its age is its last read, not the push)', async () => {
    await expect.poll(() => rowOf(UNFUNDED)?.account.status, { timeout: 15_000 }).toBe('none')
    // Every row read in this run, then ages sampled for 8 s.
    const t0 = Date.now()
    await expect
      .poll(
        () => latest !== null && latest.rows.length === 6 + EXTRA && latest.rows.every((r) => (r.fetchedAt ?? 0) >= t0 - AGE_BOUND_MS),
        {
          timeout: 30_000,
          interval: 100,
        },
      )
      .toBe(true)
    let worst = 0
    let worstRows: Record<string, number> = {}
    const until = Date.now() + 8000
    while (Date.now() < until) {
      const a = ages()
      if (a.worst > worst) [worst, worstRows] = [a.worst, a.of]
      await new Promise((r) => setTimeout(r, 250))
    }
    expect(worst, JSON.stringify(worstRows)).toBeLessThanOrEqual(AGE_BOUND_MS)
    // The pool's own least fresh account is as fresh (it follows the unfunded account too).
    const st = await call<{ leastFreshAt: number | null; detail: string }>(d.core, 'stream.status', {})
    expect(st.leastFreshAt).not.toBeNull()
    expect(Date.now() - st.leastFreshAt!).toBeLessThanOrEqual(AGE_BOUND_MS)
    expect(st.detail).toMatch(
      new RegExp(`; ${6 + EXTRA - Number(/(\d+) account\(s\) stream/.exec(st.detail)![1])} are refreshed through /info`),
    )
    limitsKept()
  }, 60_000)

  it('a restart reads no identity nor agent slots that the last run read within the hour', async () => {
    // Let the first run's background reads (identities the stream told, agent slots) finish and be stored.
    await expect
      .poll(
        () => {
          const last = dispatched.filter((e) => e.label === 'accountStatus' || e.label === 'userAgents').at(-1)
          return last === undefined || Date.now() - last.startedAt > 2000
        },
        { timeout: 30_000, interval: 200 },
      )
      .toBe(true)
    await d.core.close()
    const from = dispatched.length
    latest = null
    second = await createDeskCore({
      dataDir: d.dataDir,
      host: 'web',
      version: '0.0.0-test',
      services: headlessHostServices,
      startSandbox: async () => ({
        tradingUrl: d.sandbox.tradingUrl,
        wsUrl: d.sandbox.wsUrl,
        earnUrl: d.sandbox.earnUrl,
        chainId: d.sandbox.chainId,
        stop: async () => {},
      }),
      demoAccounts,
      alerts: false,
      overviewRefreshMs: 2000,
      scryptN: 2 ** 12,
    })
    follow(second)
    await call(second, 'vault.unlock', { passphrase: TEST_PASSPHRASE })
    latest = await call<OverviewView>(second, 'portfolio.overview')
    await new Promise((r) => setTimeout(r, 5000))
    const reads = dispatched.slice(from)
    const count = (label: string) => reads.filter((e) => e.label === label).length
    // Before: every account's identity once more (16) and its agent slots (15), in the first seconds.
    expect(count('accountStatus'), reads.map((e) => `${e.lane}:${e.label}`).join(' ')).toBe(0)
    expect(count('userAgents')).toBe(0)
    expect(count('userBalances')).toBeGreaterThan(0) // the budget went to balances
  }, 60_000)

  it('a first deposit into the account that did not exist, and an account added now, show within the bound', async () => {
    const core = second!
    const t0 = Date.now()
    d.sandbox.trading.deposit(UNFUNDED as Address, 1, 2_500_000_000n) // 25 USDC: the account now exists
    const added = privateKeyToAccount(generatePrivateKey()).address.toLowerCase() as Address
    d.sandbox.trading.deposit(added, 1, 4_200_000_000n) // 42 USDC
    await call(core, 'accounts.watch', { address: added, label: 'Added later' })
    // (the first deposit pays the activation fee of 1 USDC)
    const shows = (a: string, whole: string) => rowOf(a)?.available.some((b) => b.assetId === 1 && b.total.startsWith(whole)) === true
    await expect.poll(() => shows(UNFUNDED, '24'), { timeout: AGE_BOUND_MS, interval: 100 }).toBe(true)
    await expect.poll(() => shows(added, '41'), { timeout: AGE_BOUND_MS, interval: 100 }).toBe(true)
    await expect.poll(() => rowOf(UNFUNDED)?.account.status, { timeout: AGE_BOUND_MS }).toBe('active')
    console.info(`strict rows: the unfunded account's first deposit and an added account on the overview within ${Date.now() - t0} ms`)
    limitsKept()
  }, 60_000)
})
