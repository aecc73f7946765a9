/**
 * Start-up time to a full dashboard (every row fresh: balances or credit line, USD totals) for
 * 20 accounts on the sandbox with the spec's default rate budget (1 /info request per second,
 * enforced by the sandbox as well). Two ways: /info only, and streams first (balances and
 * credit positions from the socket snapshots, /info only for what the socket lacks).
 */
import type { Address } from 'viem'
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts'
import { startSandbox } from '../sandbox/index'
import { devOwner } from '../sandbox/scenario/dev-keys'
import { InfoClient } from '../main/core/exchange/info/client'
import { RateScheduler } from '../main/core/exchange/scheduler'
import { CreditHealthService } from '../main/core/features/credit'
import { MarketDataCache } from '../main/core/session'
import type { AccountRef } from '../main/core/features/accounts'
import { PortfolioService } from '../main/core/features/portfolio'
import { StreamPool } from '../main/core/streams/pool'
import type { BenchResult } from './types'

const thresholds = () => ({ watchPct: 50, warningPct: 75, criticalPct: 90 })

function readSide(tradingUrl: string, pool?: StreamPool) {
  const info = new InfoClient({ baseUrl: tradingUrl, scheduler: new RateScheduler({ ratePerSec: 1 }) })
  const market = new MarketDataCache(info)
  const credit = new CreditHealthService({ info, market, network: 'sandbox', thresholds, pool })
  return { info, portfolio: new PortfolioService({ info, market, credit, pool }) }
}

function full(o: { rows: { available: unknown[]; credit: unknown; account: { kind: string } }[] }): boolean {
  return o.rows.every((r) => (r.account.kind === 'credit' ? r.credit !== null : r.available.length > 0))
}

export default async function startupBench(): Promise<BenchResult> {
  const sb = await startSandbox({ seed: true, blockMs: 100, botIntervalMs: 0 })
  try {
    const refs: AccountRef[] = [0, 1, 2, 3, 4].map((i) => ({ address: devOwner(i).address as Address, label: `owner ${i}`, group: '', hasKey: true }))
    const kinds: ('balance' | 'credit')[] = ['balance', 'balance', 'balance', 'credit', 'credit']
    for (let i = refs.length; i < 20; i++) {
      const a = privateKeyToAccount(generatePrivateKey()).address.toLowerCase() as Address
      if (i % 5 === 0) {
        sb.trading.createCreditAccount(a, 2_000_000_000_000n)
        sb.trading.setCreditPosition(a, 3, 10_000_000n)
        kinds.push('credit')
      } else {
        sb.trading.deposit(a, 1, 1_000_000_000_000n)
        sb.trading.deposit(a, 3, 50_000_000n)
        kinds.push('balance')
      }
      refs.push({ address: a, label: `account ${i}`, group: '', hasKey: false })
    }
    await new Promise((r) => setTimeout(r, 1500)) // blocks in, the per-IP bucket full again

    // 1. /info only
    const a = readSide(sb.tradingUrl)
    let t0 = performance.now()
    const oa = await a.portfolio.overview(refs, 'operator')
    const infoOnlyMs = performance.now() - t0
    if (!full(oa)) throw new Error('the /info-only dashboard is incomplete')
    a.info.scheduler.close()
    await new Promise((r) => setTimeout(r, 1500))

    // 2. streams first (kinds unknown at start, as on a first run)
    const b0 = performance.now()
    const infoB = new InfoClient({ baseUrl: sb.tradingUrl, scheduler: new RateScheduler({ ratePerSec: 1 }) })
    const pool = new StreamPool({ wsUrl: sb.wsUrl, info: infoB, reconcileIntervalMs: 0 })
    const plan = pool.setAccounts(refs.map((r) => ({ address: r.address, kind: 'unknown' as const })))
    pool.start()
    const missing = await pool.waitForState(15_000)
    const snapshotsMs = performance.now() - b0
    const b = readSide(sb.tradingUrl, pool)
    t0 = performance.now()
    const ob = await b.portfolio.overview(refs, 'operator')
    const streamsMs = performance.now() - b0
    void t0
    if (!full(ob)) throw new Error('the streams-first dashboard is incomplete')
    await pool.stop()
    b.info.scheduler.close()
    infoB.scheduler.close()

    return {
      description: `start-up to a full dashboard for 20 accounts (${kinds.filter((k) => k === 'credit').length} credit) on the sandbox at 1 /info request per second`,
      metrics: {
        info_only_ms: Math.round(infoOnlyMs),
        streams_first_ms: Math.round(streamsMs),
        socket_snapshots_ms: Math.round(snapshotsMs),
        connections: plan.connections.length,
        state_channels_missing: missing.length,
      },
      comparison: {
        against: 'the same dashboard read through /info only',
        ratios: { streams_first_vs_info_only: Number((streamsMs / infoOnlyMs).toFixed(3)) },
        verdict: `streams first shows the full dashboard in ${(streamsMs / 1000).toFixed(1)} s instead of ${(infoOnlyMs / 1000).toFixed(1)} s: the socket snapshots carry balances and positions, /info is left with marks, the oracle and each credit line's available USD; the last-known state is on screen before either`,
      },
    }
  } finally {
    await sb.stop()
  }
}
