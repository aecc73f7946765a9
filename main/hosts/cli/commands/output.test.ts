/**
 * What the desk prints for people: amounts in asset units with the symbol and thousands
 * separators, USD one way, rates and LTVs as percentages, times in the operator's zone with
 * their age, accounts by label and short address (labels accepted wherever an account is named).
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import type { AlertView, AssetView, CreditHealthView, OverviewView, PnlReport, PolicyView } from '../../../contract/types'
import { CliContext } from '../context'
import type { CliIo } from '../io'
import { runCli, type CommandGroup } from '../router'
import { namerFor } from '../support/display'
import { transferPreviewLines, type TransferPreview } from '../support/transfer-preview'
import { earnLines, type EarnOverview } from './earn'
import { journalListLines } from './journal'
import { assets } from './markets'
import { policyLines, ruleValue } from './policy'
import { alertLines, pnlLines } from './reports'
import { creditLines, overviewLines } from './status'

const MAIN = '0x1111111111111111111111111111111111111111'
const OPS = '0x2222222222222222222222222222222222222222'
const name = namerFor([
  { address: MAIN, label: 'Treasury main' },
  { address: OPS, label: 'Treasury ops' },
])
const NOW = Date.UTC(2026, 10, 23, 12, 0, 0)

let tz: string | undefined
beforeEach(() => {
  tz = process.env.TZ
  process.env.TZ = 'UTC'
})
afterEach(() => {
  if (tz === undefined) delete process.env.TZ
  else process.env.TZ = tz
  vi.restoreAllMocks()
})

function fakeIo() {
  let out = ''
  let err = ''
  const io: CliIo = {
    stdout: (t) => void (out += t),
    stderr: (t) => void (err += t),
    isInteractive: () => false,
    promptLine: () => Promise.reject(new Error('no tty')),
    promptHidden: () => Promise.reject(new Error('no tty')),
  }
  return { io, out: () => out, err: () => err }
}

/** The core's answers by channel; the calls made are recorded. */
function fakeCore(answers: Record<string, unknown>) {
  const calls: { channel: string; args: unknown }[] = []
  vi.spyOn(CliContext.prototype, 'call').mockImplementation((async (channel: string, args: unknown) => {
    calls.push({ channel, args })
    if (!(channel in answers)) throw new Error(`unexpected channel ${channel}`)
    return answers[channel]
  }) as never)
  vi.spyOn(CliContext.prototype, 'close').mockResolvedValue()
  return calls
}

describe('desk assets', () => {
  it('shows the credit LTV weight (0..100) as that percentage, not times a hundred', async () => {
    const list: AssetView[] = [
      { assetId: 1, symbol: 'USDC', balanceDecimals: 8, creditLtv: 100 },
      { assetId: 3, symbol: 'BTC', balanceDecimals: 8, creditLtv: 85 },
      { assetId: 4, symbol: 'ETH', balanceDecimals: 8, creditLtv: 72.5 },
    ]
    fakeCore({ 'markets.list': { markets: [], assets: list } })
    const { io, out } = fakeIo()
    expect(await runCli(['assets'], [assets], io)).toBe(0)
    const rows = out().trim().split('\n')
    expect(rows[1]).toMatch(/^1\s+USDC\s+8\s+100%$/)
    expect(rows[2]).toMatch(/^3\s+BTC\s+8\s+85%$/)
    expect(rows[3]).toMatch(/^4\s+ETH\s+8\s+72\.5%$/)
    expect(out()).not.toContain('10,000')
  })
})

describe('status', () => {
  const overview: OverviewView = {
    asOf: NOW - 5_000,
    totalUsd: '1234567.505',
    totals: [],
    rows: [
      {
        account: {
          address: MAIN,
          label: 'Treasury main',
          group: '',
          hasKey: true,
          kind: 'balance',
          status: 'active',
          accountIndex: null,
        } as OverviewView['rows'][number]['account'],
        totalUsd: '1234567.5',
        available: [
          { assetId: 1, symbol: 'USDC', total: '250000.12345678', available: '246950.12345678', locked: '3050', usdValue: '250000.124999' },
        ],
        credit: null,
        agentsInUse: 1,
        pendingJournal: 0,
        fetchedAt: NOW - 65_000,
        stale: false,
      },
    ],
  }

  it('names the account, gives amounts with symbols and separators, USD to the cent, times in the zone with their age', () => {
    const lines = overviewLines(overview, 'sandbox', NOW)
    expect(lines[0]).toBe('network sandbox, as of 2026-11-23 11:59:55 UTC (5s ago)')
    expect(lines[1]).toBe('Treasury main (0x1111…1111)  balance active  (fetched 1m 5s ago)')
    expect(lines[2]).toContain('total 250,000.12345678 USDC  available 246,950.12345678 USDC  locked 3,050 USDC  $250,000.12')
    expect(lines.at(-1)).toBe('all accounts: $1,234,567.51') // to the cent, rounded half away from zero on the decimal string
  })

  it('an address the exchange does not know yet reads "not activated", as on the Overview', () => {
    const row = overview.rows[0]!
    const spare = { ...row, account: { ...row.account, label: 'Spare', kind: 'unknown', status: 'none' }, available: [], totalUsd: '0' }
    const lines = overviewLines({ ...overview, rows: [spare] as OverviewView['rows'] }, 'sandbox', NOW)
    expect(lines[1]).toBe('Spare (0x1111…1111)  not activated  (fetched 1m 5s ago)')
  })

  it('shows times in the operator zone (TZ)', () => {
    process.env.TZ = 'Asia/Tokyo'
    expect(overviewLines(overview, 'sandbox', NOW)[0]).toBe('network sandbox, as of 2026-11-23 20:59:55 GMT+9 (5s ago)')
  })

  it('credit health: USD one way, LTV as a percentage, unknown values marked', () => {
    const h: CreditHealthView = {
      address: OPS,
      status: 'active',
      creditUsd: '50000',
      availableUsd: null,
      lastKnownAvailableUsd: '12000.5',
      marksStale: true,
      oracle: { status: 'available', reasonCode: null },
      warning: 'watch',
      tradingWhitelist: [],
      positions: [
        {
          assetId: 3,
          symbol: 'BTC',
          actual: '0.3',
          pendingExposure: '0',
          ltvPercent: 85,
          contributionUsd: '16575',
          markUsd: '65000',
          markAgeMs: 12_000,
        },
      ],
    }
    expect(creditLines(h, name)).toEqual([
      'Treasury ops (0x2222…2222)  credit active  level watch',
      '  credit line $50,000.00',
      '  available   —  (marks stale; last known $12,000.50)',
      '  oracle      available',
      '  BTC    actual 0.3 BTC  pending 0 BTC  LTV 85%  contributes $16,575.00  mark 12s old',
    ])
  })
})

describe('journal, alerts, policy, earn, pnl, previews', () => {
  it('journal list: the time in the zone with its age, the account by name', () => {
    const rows = [
      {
        id: 7,
        createdAt: NOW - 120_000,
        network: 'sandbox',
        actionType: 'settle',
        state: 'accepted',
        finalStatus: 'success',
        code: null,
        account: MAIN,
        summary: 'settle 1 BTC',
      },
    ]
    expect(journalListLines(rows as never, name, NOW)).toEqual([
      '#7 2026-11-23 11:58:00 UTC (2m 0s ago) sandbox settle           accepted   success  Treasury main (0x1111…1111)  settle 1 BTC',
    ])
  })

  it('alerts: time in the zone with its age', () => {
    const a = {
      id: '3',
      kind: 'ltv',
      level: 'warning',
      title: 'Credit LTV',
      message: 'at 80%',
      atMs: NOW - 3_600_000,
      acknowledgedAt: null,
    } as unknown as AlertView
    expect(alertLines([a], NOW)).toEqual(['#3 2026-11-23 11:00:00 UTC (1h 0m ago) warning Credit LTV: at 80%'])
  })

  it('policy: USD limits as USD, bands as percentages, the cooling-off as a duration, pending changes with their time', () => {
    expect(ruleValue('25000', 'USD per transaction')).toBe('$25,000.00')
    expect(ruleValue('2.5', 'percent from the mark or the far side of the book')).toBe('2.5%')
    expect(ruleValue('86400000', 'ms')).toBe('1 day')
    expect(ruleValue('1500.5', 'asset units per transaction')).toBe('1,500.5')
    expect(ruleValue(null, 'USD per order')).toBe('off')
    const p: PolicyView = {
      network: 'sandbox',
      coolingOffMs: 60_000,
      sandboxDefaults: true,
      halted: null,
      addresses: [],
      events: [{ id: 1, at: NOW - 30_000, kind: 'rule-set', summary: 'max-order-usd 10000' }],
      rules: [
        {
          name: 'max-order-usd',
          value: '10000',
          unit: 'USD per order',
          pending: { value: '50000', requestedAt: NOW - 1000, effectiveAt: NOW + 59_000 },
        },
      ],
    }
    const lines = policyLines(p)
    expect(lines[1]).toBe('cooling-off 1 minute (the sandbox default; real networks default to 24 h)')
    expect(lines[3]).toMatch(/^ {2}max-order-usd\s+\$10,000\.00\s+per order {2}-> \$50,000\.00 from 2026-11-23 12:00:59 UTC \(/)
    expect(lines).toContainEqual(expect.stringMatching(/^ {2}2026-11-23 11:59:30 UTC \(.* ago\) rule-set max-order-usd 10000$/))
  })

  it('earn: amounts with symbols, APY as a percentage, withdrawal times with age and countdown', () => {
    const o = {
      user: MAIN,
      paused: false,
      nextUserNonce: 1,
      assets: [
        {
          symbol: 'USDC',
          earnBalance: '50000',
          inQueue: '1000',
          withdrawLocked: '0',
          lifetimeDeposit: '50000',
          lifetimeYield: '12.5',
          lifetimeWithdraw: '0',
          projectedApy: '0.065',
        },
      ],
      withdrawals: [
        {
          operationId: 'op-1',
          type: 'scheduled',
          gross: '1000',
          fee: '0',
          net: '1000',
          symbol: 'USDC',
          status: 'queued',
          createdAt: NOW - 60_000,
          claimableAt: NOW + 90_000,
          claimableInMs: 90_000,
          claimable: false,
          cancelable: true,
          needsAttention: false,
          failure: null,
        },
      ],
      attention: [],
    } as unknown as EarnOverview
    const lines = earnLines(o, name, NOW)
    expect(lines[0]).toBe('Treasury main (0x1111…1111)')
    expect(lines[1]).toBe(
      '  USDC   earn 50,000 USDC  queue 1,000 USDC  locked 0 USDC  deposited 50,000 USDC  yield 12.5 USDC  withdrawn 0 USDC  APY 6.5%',
    )
    expect(lines[3]).toBe(
      '  op-1  scheduled 1,000 USDC (fee 0 USDC)  queued  created 2026-11-23 11:59:00 UTC (1m 0s ago)  claimable in 1m 30s',
    )
  })

  it('pnl: the range in the zone, accounts by name, amounts in their assets', () => {
    const r = {
      method: 'FIFO',
      methodNote: 'first in, first out',
      fromMs: NOW - 86_400_000,
      toMs: null,
      gaps: [],
      rows: [
        {
          account: OPS,
          label: 'Treasury ops',
          market: 'BTC/USDC',
          baseSymbol: 'BTC',
          quoteSymbol: 'USDC',
          realisedNet: '-1234.5',
          realisedGross: '-1200',
          quoteFees: '34.5',
          openQty: '0.25',
        },
      ],
    } as unknown as PnlReport
    const lines = pnlLines(r, NOW)
    expect(lines[1]).toBe('from 2026-11-22 12:00:00 UTC (24h 0m ago) to now')
    expect(lines[2]).toMatch(
      /^Treasury ops \(0x2222…2222\)\s+BTC\/USDC\s+realised -1,234.5 USDC \(gross -1,200 USDC, fees 34.5 USDC\) {2}open 0.25 BTC$/,
    )
  })

  it('settle preview: both accounts by name, amounts in the asset', () => {
    const p: TransferPreview = {
      kind: 'settle',
      from: OPS,
      to: MAIN,
      asset: { assetId: 3, symbol: 'BTC', decimals: 8 },
      amount: '1234.5',
      amountAtoms: '0',
      creditPosition: { account: OPS, before: '2000', after: '765.5' },
      cashAvailable: { account: MAIN, before: '0', after: '1234.5' },
      notes: [],
    }
    expect(transferPreviewLines(p, name)).toEqual([
      'settle 1,234.5 BTC',
      'from Treasury ops (0x2222…2222)',
      'to   Treasury main (0x1111…1111)',
      'credit position Treasury ops (0x2222…2222): 2,000 BTC -> 765.5 BTC',
      'available Treasury main (0x1111…1111): 0 BTC -> 1,234.5 BTC',
    ])
  })
})

describe('accounts named by label', () => {
  const seen: { positionals: string[]; account: string | undefined; address: string | undefined }[] = []
  const group: CommandGroup = {
    name: 'demo',
    summary: 'demo',
    commands: [
      {
        name: 'show',
        summary: 's',
        positionals: ['ACCOUNT', 'FILE?'],
        options: { account: { type: 'string', description: 'x' }, address: { type: 'string', description: 'x' } },
        async run(ctx) {
          seen.push({ positionals: [...ctx.positionals], account: ctx.string('account'), address: ctx.string('address') })
        },
      },
    ],
  }

  it('resolves labels (any case) in account positionals, --account and each of --address A,B; addresses pass through without asking the core', async () => {
    const calls = fakeCore({
      'accounts.list': [
        { address: MAIN, label: 'Treasury main' },
        { address: OPS, label: 'Treasury ops' },
      ],
    })
    const { io } = fakeIo()
    expect(
      await runCli(
        ['demo', 'show', 'treasury MAIN', 'out.json', '--account', 'Treasury ops', '--address', `Treasury ops,${MAIN}`],
        [group],
        io,
      ),
    ).toBe(0)
    expect(seen.at(-1)).toEqual({ positionals: [MAIN, 'out.json'], account: OPS, address: `${OPS},${MAIN}` })
    // A comma list in an account positional (orders list ACCOUNT,ACCOUNT): each resolved.
    expect(await runCli(['demo', 'show', `Treasury ops,${MAIN}`], [group], io)).toBe(0)
    expect(seen.at(-1)!.positionals).toEqual([`${OPS},${MAIN}`])
    calls.length = 0
    expect(await runCli(['demo', 'show', MAIN, '--account', OPS], [group], io)).toBe(0)
    expect(calls).toEqual([])
  })

  it('an unknown label is a typed error that lists the labels', async () => {
    fakeCore({ 'accounts.list': [{ address: MAIN, label: 'Treasury main' }] })
    const { io, err } = fakeIo()
    expect(await runCli(['demo', 'show', MAIN, '--account', 'Nope'], [group], io)).toBe(1)
    expect(err()).toBe('desk: no account is labelled "Nope" (give its 0x address or one of: Treasury main) [UnknownAccount]\n')
  })
})
