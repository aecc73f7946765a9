/**
 * Latency as an operator sees it, in Debian's Chromium against the loopback web host, the real
 * core and a LIVE sandbox in a process of its own (bench/sandbox-child.ts) (moving marks, bot trading, the spec's default rate limits), 20 accounts:
 *  - frame to screen: a deposit changes one watched account's balance; the time from the moment
 *    the sandbox's socket sends the spotState frame carrying it (ws send, wall clock) to the
 *    moment a MutationObserver in the page sees the new value in the overview row (wall clock of
 *    the same machine). p50/p95/p99 over SAMPLES changes; goal p99 ≤ 150 ms.
 *  - preview: `settle.preview`, `repay.preview` and `transfer.preview` through the core while the
 *    data is live, interleaved; goal p99 ≤ 250 ms each (a
 *    preview is what the operator reads before signing: it must come from live state, within
 *    the quarter second in which a click still feels immediate, and never wait on a /info slot).
 */
import { rmSync } from 'node:fs'
import { join } from 'node:path'
import { startWebHost } from '../main/hosts/web/server'
import { devOwner } from '../sandbox/scenario/dev-keys'
import { launchBrowser, repoRoot } from '../e2e/harness'
import { fromPercentile, fromValue, percentile, spreadOf } from './judge'
import { BENCH_PASSPHRASE, call, openCore, prepareDataDirOn } from './desk-fixture'
import { startSandboxProcess } from './sandbox-child'
import type { BenchResult } from './types'

const SAMPLES = 100
const PREVIEWS = 60
/** Previews are time-boxed: when each waits on the /info budget, the box keeps the bench within its five minutes. */
const PREVIEW_BOX_MS = 15_000
const FRAME_GOAL_MS = 150
const PREVIEW_GOAL_MS = 250

export default async function run(): Promise<BenchResult> {
  // The sandbox runs in a process of its own: its matching, blocks and bot would otherwise share
  // the core's event loop and count as the desk's latency (the exchange is remote in production).
  const sandbox = await startSandboxProcess()
  const { dataDir, extra } = await prepareDataDirOn(sandbox.urls, sandbox.deposit)
  const target = extra[0]!
  const sentAt = sandbox.watch(target.address)
  const browser = await launchBrowser()
  const core = await openCore(dataDir, sandbox.urls)
  const web = await startWebHost({ core, rendererRoot: join(repoRoot, 'out/renderer-web'), log: () => {} })
  try {
    await call(core, 'vault.unlock', { passphrase: BENCH_PASSPHRASE })
    const page = await browser.context.newPage()
    await page.goto(web.url)
    // The table is virtualised: filter it down to the account whose balance will change.
    await page.getByRole('textbox', { name: 'Filter accounts', exact: true }).fill(target.label, { timeout: 60_000 })
    await page.getByRole('link', { name: `Open account ${target.label}` }).waitFor({ timeout: 60_000 })
    let balance = 4_999n // 5000 deposited less the 1.0 activation fee
    await page.waitForFunction(
      ([label, v]) =>
        [...document.querySelectorAll('[data-testid="overview-table"] tr')].some(
          (r) => r.textContent?.includes(label!) && r.textContent.replace(/[\s,]/g, '').includes(v!),
        ),
      [target.label, balance.toString()],
      { timeout: 60_000 },
    )
    // The observer: first wall-clock time each awaited value shows in the target's row.
    // (A string, not a function: tsx's name-keeping helper does not exist in the page.)
    await page.evaluate(`(() => {
      const label = ${JSON.stringify(target.label)}
      window.__want = new Set()
      window.__seen = {}
      new MutationObserver(() => {
        if (window.__want.size === 0) return
        const row = [...document.querySelectorAll('[data-testid="overview-table"] tr')].find((r) => r.textContent && r.textContent.includes(label))
        const text = ((row && row.textContent) || '').replace(/[\\s,]/g, '')
        for (const v of window.__want) {
          if (text.includes(v)) {
            window.__seen[v] = Date.now()
            window.__want.delete(v)
          }
        }
      }).observe(document.body, { subtree: true, childList: true, characterData: true })
    })()`)

    const frameToScreen: number[] = []
    const depositToScreen: number[] = []
    for (let i = 0; i < SAMPLES + 3; i++) {
      const add = BigInt(11 + (i % 50))
      balance += add
      const expected = balance.toString()
      await page.evaluate((v) => (window as unknown as { __want: Set<string> }).__want.add(v), expected)
      const d0 = Date.now()
      await sandbox.deposit(target.address, 1, add * 10n ** 8n)
      await page.waitForFunction((v) => v in (window as unknown as { __seen: Record<string, number> }).__seen, expected, {
        timeout: 30_000,
        polling: 20,
      })
      const seen = await page.evaluate((v) => (window as unknown as { __seen: Record<string, number> }).__seen[v]!, expected)
      // The sandbox process reports its send over IPC, which may trail the page by a moment.
      for (let w = 0; w < 100 && !sentAt.has(expected); w++) await new Promise((r) => setTimeout(r, 10))
      const sent = sentAt.get(expected)
      if (sent === undefined) throw new Error(`the value ${expected} reached the screen without a spotState frame carrying it`)
      if (i >= 3) {
        // the first three warm the path (JIT, first patches)
        frameToScreen.push(seen - sent)
        depositToScreen.push(seen - d0)
      }
      await new Promise((r) => setTimeout(r, 30 + ((i * 37) % 120))) // spread the deposits over the block and coalescing phases
    }
    await page.close()

    // Previews while the data is live (streams connected, overview fetched): settle (credit long
    // to cash), repay (cash toward the credit short) and transfer (between balance accounts),
    // interleaved so each sees the same load.
    const kinds = [
      {
        name: 'settle',
        channel: 'settle.preview',
        args: { creditAccount: devOwner(3).address, cashAccount: devOwner(0).address, assetId: 3, amount: '0.1' },
      },
      {
        name: 'repay',
        channel: 'repay.preview',
        args: { cashAccount: devOwner(0).address, creditAccount: devOwner(3).address, assetId: 1, amount: '100' },
      },
      {
        name: 'transfer',
        channel: 'transfer.preview',
        args: { from: devOwner(0).address, to: devOwner(1).address, assetId: 1, amount: '10' },
      },
    ] as const
    for (const k of kinds) await call(core, k.channel, k.args) // warm-up
    const previews: Record<string, number[]> = { settle: [], repay: [], transfer: [] }
    const box0 = performance.now()
    for (let i = 0; i < PREVIEWS && performance.now() - box0 < PREVIEW_BOX_MS; i++) {
      for (const k of kinds) {
        const t0 = performance.now()
        await call(core, k.channel, k.args)
        previews[k.name]!.push(performance.now() - t0)
      }
    }
    const previewFigure = (kind: string, sample: number[]) =>
      sample.length >= 20
        ? fromPercentile(
            {
              name: `${kind}_preview_p99`,
              what: `${kind}.preview through the core with live data, p99`,
              unit: 'ms',
              goal: PREVIEW_GOAL_MS,
              better: 'lower',
              clock: 'wall',
            },
            sample,
            99,
          )
        : fromValue(
            {
              name: `${kind}_preview_p99`,
              what: `${kind}.preview through the core with live data: only ${sample.length} previews fit the ${PREVIEW_BOX_MS / 1000} s box, so the slowest stands for p99`,
              unit: 'ms',
              goal: PREVIEW_GOAL_MS,
              better: 'lower',
              clock: 'wall',
            },
            Math.max(...sample),
            1.4826 * spreadOf(sample).mad,
            `1.4826 x MAD of ${sample.length} time-boxed previews`,
            sample,
          )
    const r1 = (x: number) => Number(x.toFixed(1))
    return {
      description: `Chromium + web host + core + live sandbox in its own process (moving marks, bot trading, default 1 req/s limits), 20 accounts: ${SAMPLES} balance changes from the sandbox's socket send to the DOM (MutationObserver, same wall clock); ${PREVIEWS} each of settle, repay and transfer previews through the core, interleaved`,
      figures: [
        fromPercentile(
          {
            name: 'frame_to_screen_p99',
            what: 'spotState frame sent by the sandbox to the new balance in the overview DOM, p99',
            unit: 'ms',
            goal: FRAME_GOAL_MS,
            better: 'lower',
            clock: 'wall',
          },
          frameToScreen,
          99,
        ),
        ...kinds.map((k) => previewFigure(k.name, previews[k.name]!)),
      ],
      metrics: {
        frame_to_screen_p50_ms: percentile(frameToScreen, 50),
        frame_to_screen_p95_ms: percentile(frameToScreen, 95),
        frame_to_screen_p99_ms: percentile(frameToScreen, 99),
        frame_to_screen_max_ms: Math.max(...frameToScreen),
        deposit_to_screen_p50_ms: percentile(depositToScreen, 50),
        deposit_to_screen_p99_ms: percentile(depositToScreen, 99),
        ...Object.fromEntries(
          kinds.flatMap((k) => [
            [`${k.name}_preview_p50_ms`, r1(percentile(previews[k.name]!, 50))],
            [`${k.name}_preview_p99_ms`, r1(percentile(previews[k.name]!, 99))],
          ]),
        ),
        samples: frameToScreen.length,
        previews_each: previews.settle!.length,
      },
      verdict: `a balance change reaches the screen ${percentile(frameToScreen, 50)} ms (p50), ${percentile(frameToScreen, 99)} ms (p99) after the sandbox sends its frame; previews take ${kinds.map((k) => `${k.name} ${r1(percentile(previews[k.name]!, 50))}/${r1(percentile(previews[k.name]!, 99))} ms`).join(', ')} (p50/p99)`,
    }
  } finally {
    await web.close()
    await core.close()
    await browser.close()
    await sandbox.stop()
    rmSync(dataDir, { recursive: true, force: true })
  }
}
