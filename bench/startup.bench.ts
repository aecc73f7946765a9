/**
 * Start-up, through the real core:
 *  - fresh: core start (unlock included) to a full overview of 20 accounts (every row fetched,
 *    not stale, balances or credit line present) on a live sandbox with the spec's default
 *    1 /info request per second; goal ≤ 3 s.
 *  - first paint from the last-known cache: the data dir's journal now holds that overview; a
 *    new core starts over it with the sandbox STOPPED (so nothing fresh can arrive), and the
 *    built renderer in Chromium, through the web host, paints the cached rows with their age;
 *    navigation to painted, 5 page loads; goal ≤ 1 s.
 */
import { rmSync } from 'node:fs'
import { join } from 'node:path'
import type { OverviewView } from '../main/contract/types'
import { startWebHost } from '../main/hosts/web/server'
import { launchBrowser, repoRoot } from '../e2e/harness'
import { fromRuns, fromValue, median } from './judge'
import { ACCOUNTS, BENCH_PASSPHRASE, call, openCore, prepareDataDir, startLiveSandbox, urlsOf } from './desk-fixture'
import type { BenchResult } from './types'

const FRESH_GOAL_MS = 3000
const PAINT_GOAL_MS = 1000
const PAINTS = 5

function full(o: OverviewView): boolean {
  // An unfunded account is fresh with no balances; a credit account needs its credit line.
  return o.rows.length === ACCOUNTS && o.rows.every((r) => !r.stale && r.fetchedAt !== null && (r.account.kind !== 'credit' || r.credit !== null))
}

export default async function run(): Promise<BenchResult> {
  const sandbox = await startLiveSandbox()
  const { dataDir, extra } = await prepareDataDir(sandbox)
  const browser = await launchBrowser()
  try {
    // 1. Fresh start to a full overview.
    const t0 = performance.now()
    const core = await openCore(dataDir, urlsOf(sandbox))
    let fullAt = 0
    let last: OverviewView | null = null
    const done = new Promise<void>((resolve) => {
      core.events.subscribe((event, payload) => {
        if (event === 'state.overview') last = payload as OverviewView
        if (event === 'state.overview' && !fullAt && full(payload as OverviewView)) {
          fullAt = performance.now()
          resolve()
        }
      })
    })
    await call(core, 'vault.unlock', { passphrase: BENCH_PASSPHRASE })
    const first = await call<OverviewView>(core, 'portfolio.overview')
    if (!fullAt && full(first)) fullAt = performance.now()
    await Promise.race([done, new Promise((r) => setTimeout(r, 30_000))])
    // Not full within 30 s: the figure is infinite (a miss), and the rows still lacking are named.
    const lacking = (last ?? first).rows.filter((r) => r.stale || r.fetchedAt === null || (r.account.kind === 'credit' && r.credit === null))
    const lackingText = `${(last ?? first).rows.length} rows, ${lacking.length} not fresh: ${lacking.slice(0, 4).map((r) => `${r.account.label} (kind ${r.account.kind}, stale ${r.stale}, fetched ${r.fetchedAt ? 'yes' : 'no'}, credit ${r.credit ? 'yes' : 'no'}, balances ${r.available.length})`).join('; ')}`
    const freshMs = fullAt ? fullAt - t0 : Infinity
    await new Promise((r) => setTimeout(r, 500)) // let the last-known writes settle
    await core.close()
    await sandbox.stop()

    // 2. First paint from the cache, the network gone.
    const cached = await openCore(dataDir, urlsOf(sandbox))
    await call(cached, 'vault.unlock', { passphrase: BENCH_PASSPHRASE })
    const web = await startWebHost({ core: cached, rendererRoot: join(repoRoot, 'out/renderer-web'), log: () => {} })
    const paints: number[] = []
    let ageText = ''
    let screenAtMiss = ''
    try {
      for (let i = 0; i < PAINTS + 1; i++) {
        const page = await browser.context.newPage()
        const p0 = performance.now()
        await page.goto(web.url)
        // Painted: a cached row of ours shows a number and its age ("… ago"). (No named helpers inside: tsx's name-keeping helper does not exist in the page.)
        const painted = await page.waitForFunction(
          () => [...document.querySelectorAll('[data-testid="overview-table"] tr')].some((r) => /Bench|Treasury/.test(r.textContent || '') && /\d/.test(r.textContent || '') && /ago/.test(r.textContent || '')),
          undefined,
          { timeout: i === 0 ? 15_000 : 5_000, polling: 'raf' },
        ).then(() => true, () => false)
        // Nothing painted: an infinite figure (a miss), with what the screen showed instead.
        const ms = painted ? performance.now() - p0 : Infinity
        if (!painted) {
          screenAtMiss = (await page.locator('main').innerText().catch(() => '(no main)')).replace(/\s+/g, ' ').slice(0, 300)
          if (i > 0) paints.push(ms)
          await page.close()
          if (i >= 1 && paints.length >= 1) { while (paints.length < PAINTS) paints.push(Infinity); break }
          continue
        }
        if (i > 0) paints.push(ms) // the first load warms Chromium's caches
        ageText = (await page.locator('[data-testid="overview-table"] tr', { hasText: 'ago' }).first().innerText()).match(/[^\n]*ago[^\n]*/)?.[0] ?? ''
        await page.close()
      }
    } finally {
      await web.close()
      await cached.close()
    }
    return {
      description: `20 accounts (6 keyed, ${extra.length} watch-only) on a live sandbox at the default 1 /info request per second: core start to a full overview; then, with the sandbox stopped, web-host page load to the cached overview painted with its age in Chromium (${PAINTS} loads)`,
      figures: [
        fromValue(
          { name: 'fresh_overview_20_accounts', what: 'core start (unlock included) to the first overview pushed with all 20 rows fetched and fresh', unit: 'ms', goal: FRESH_GOAL_MS, better: 'lower', clock: 'wall' },
          freshMs,
          0,
          'one run (each needs a fresh core against the rate-limited sandbox); no spread measured',
          [freshMs],
        ),
        fromRuns({ name: 'first_paint_from_cache', what: 'page navigation to cached rows painted with their age, network down, per page load', unit: 'ms', goal: PAINT_GOAL_MS, better: 'lower', clock: 'wall' }, paints),
      ],
      metrics: {
        fresh_overview_ms: fullAt ? Math.round(freshMs) : 'not within 30 s',
        first_paint_from_cache_median_ms: Math.round(median(paints)),
        first_paint_from_cache_per_load_ms: paints.map((x) => Math.round(x)).join(' / '),
        cached_row_age_shown: ageText.trim(),
        screen_when_no_paint: screenAtMiss,
        fresh_overview_state_at_30s: fullAt ? 'full' : lackingText,
      },
      verdict: `a full overview of 20 accounts ${fullAt ? `in ${(freshMs / 1000).toFixed(1)} s` : `not reached within 30 s (${lackingText})`} from core start; with the network down the cached overview paints in ${Math.round(median(paints))} ms, showing its age ("${ageText.trim()}")`,
    }
  } finally {
    await browser.close()
    await sandbox.stop().catch(() => {})
    rmSync(dataDir, { recursive: true, force: true })
  }
}
