/**
 * Renderer speed in headless Chromium: time from loading the built renderer to an
 * interactive overview of 20 accounts, and the latency from a pushed `state.overview`
 * (a balance change) to the next painted frame showing it. The host is replaced by an
 * in-page bridge answering at once, so the figures are the renderer's own cost.
 */
import { execFileSync } from 'node:child_process'
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { createServer } from 'node:http'
import { tmpdir } from 'node:os'
import { extname, join, normalize } from 'node:path'
import { fileURLToPath } from 'node:url'
import { chromium } from 'playwright-core'
import { percentile, type BenchResult } from './types'

const root = fileURLToPath(new URL('..', import.meta.url))
const rendererRoot = join(root, 'out/renderer-web')
const ROWS = 20
const CHANGES = 60

function chromiumPath(): string {
  if (process.env.CHROME_PATH && existsSync(process.env.CHROME_PATH)) return process.env.CHROME_PATH
  for (const name of ['chromium', 'chromium-browser', 'google-chrome']) {
    try {
      const p = execFileSync('sh', ['-c', `command -v ${name}`], { encoding: 'utf8' }).trim()
      if (p) return p
    } catch {
      // try the next name
    }
  }
  throw new Error('Chromium not found (set CHROME_PATH)')
}

const MIME: Record<string, string> = { '.html': 'text/html', '.js': 'text/javascript', '.css': 'text/css', '.svg': 'image/svg+xml', '.png': 'image/png' }

/** The in-page stand-in for `window.desk`: 20 accounts, unlocked vault, pushes on demand. */
export const fakeDesk = (rows: number) => `
(() => {
  const now = Date.now()
  const addr = (i) => '0x' + (i + 1).toString(16).padStart(40, '0')
  const row = (i, usd) => ({
    account: { address: addr(i), label: 'acct-' + String(i).padStart(2, '0'), group: i % 2 ? 'desk-a' : 'desk-b', hasKey: true, kind: i % 4 === 0 ? 'credit' : 'balance', status: 'active', accountIndex: String(i) },
    totalUsd: usd, available: [{ assetId: 1, symbol: 'USDC', available: usd, locked: '0', total: usd, usdValue: usd }],
    credit: i % 4 === 0 ? { creditUsd: '50000', availableUsd: '20000', warning: 'ok' } : null,
    agentsInUse: 1, pendingJournal: 0, fetchedAt: now, stale: false,
  })
  const view = (first, asOf) => ({ rows: Array.from({ length: ${rows} }, (_, i) => row(i, i === 0 ? first : '1000')), totals: [{ assetId: 1, symbol: 'USDC', total: '20000', usdValue: '20000' }], totalUsd: '20000', asOf })
  const listeners = new Set()
  const net = { name: 'sandbox', kind: 'sandbox', chainId: 424242, tradingUrl: '', wsUrl: '', earnUrl: '', infoRatePerSec: 1, tradeRatePerSec: 1, configured: true }
  const answers = {
    'app.state': { version: 'bench', host: 'web', network: net, vault: { exists: true, unlocked: true, lastPassphraseAt: now, autoLockMinutes: 15 } },
    'settings.get': { autoLockMinutes: 15, passphraseWindowMinutes: 5, warningThresholds: { watchPct: 50, warningPct: 25, criticalPct: 10 }, theme: 'dark' },
    'portfolio.overview': view('1000', now),
    'accounts.list': [],
  }
  window.desk = {
    host: 'web',
    invoke: async (channel) => (channel in answers ? { ok: true, value: answers[channel] } : { ok: false, error: { code: 'NotAvailable', message: channel } }),
    on: (l) => { listeners.add(l); return () => listeners.delete(l) },
  }
  let seq = 0
  window.__bench = {
    /** Pushes a changed first-row balance; resolves with ms from push to the next frame that shows it. */
    change() {
      seq++
      const usd = String(2000 + seq) + '.5'
      const text = '$' + String(2000 + seq).replace(/\\B(?=(\\d{3})+(?!\\d))/g, ',') + '.5'
      return new Promise((resolve) => {
        const t0 = performance.now()
        const done = () => requestAnimationFrame(() => resolve(performance.now() - t0))
        const table = document.querySelector('[data-testid="overview-table"]')
        const obs = new MutationObserver(() => { if (table.textContent.includes(text)) { obs.disconnect(); done() } })
        obs.observe(table, { subtree: true, childList: true, characterData: true })
        for (const l of listeners) l('state.overview', view(usd, now + seq))
      })
    },
  }
})()
`

export default async function run(): Promise<BenchResult> {
  if (!existsSync(join(rendererRoot, 'index.html'))) execFileSync('npx', ['electron-vite', 'build'], { cwd: root, stdio: 'ignore' })
  const server = createServer((req, res) => {
    const path = normalize(decodeURIComponent((req.url ?? '/').split('?')[0] ?? '/')).replace(/^(\.\.[/\\])+/, '')
    const file = join(rendererRoot, path === '/' ? 'index.html' : path)
    if (!file.startsWith(rendererRoot) || !existsSync(file)) {
      res.writeHead(404).end()
      return
    }
    res.writeHead(200, { 'content-type': MIME[extname(file)] ?? 'application/octet-stream' }).end(readFileSync(file))
  })
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r))
  const port = (server.address() as { port: number }).port
  const userDataDir = mkdtempSync(join(tmpdir(), 'desk-bench-'))
  const context = await chromium.launchPersistentContext(userDataDir, { executablePath: chromiumPath(), headless: true, args: ['--no-sandbox', '--disable-gpu', '--no-first-run'], viewport: { width: 1440, height: 900 } })
  try {
    const launches: number[] = []
    const page = await context.newPage()
    await page.addInitScript(fakeDesk(ROWS))
    for (let i = 0; i < 6; i++) {
      await page.goto('about:blank')
      const t0 = Date.now()
      await page.goto(`http://127.0.0.1:${port}/#/overview`)
      await page.getByRole('link', { name: 'Open account acct-00' }).waitFor()
      await page.getByRole('textbox', { name: 'Filter accounts' }).waitFor()
      launches.push(Date.now() - t0)
    }
    // The first load is cold (nothing cached); the rest are warm restarts.
    const cold = launches.shift() ?? NaN
    const latencies: number[] = []
    for (let i = 0; i < CHANGES; i++) latencies.push(await page.evaluate(() => (globalThis as unknown as { __bench: { change(): Promise<number> } }).__bench.change()))
    return {
      description: `Built renderer in headless Chromium with an in-page bridge: load to an interactive overview of ${ROWS} accounts (one cold load, five warm), and pushed balance change to the next painted frame (${CHANGES} changes).`,
      metrics: {
        launch_to_interactive_cold_ms: cold,
        launch_to_interactive_warm_p50_ms: percentile(launches, 50),
        launch_to_interactive_warm_max_ms: Math.max(...launches),
        change_to_frame_p50_ms: Number(percentile(latencies, 50).toFixed(1)),
        change_to_frame_p95_ms: Number(percentile(latencies, 95).toFixed(1)),
        change_to_frame_max_ms: Number(Math.max(...latencies).toFixed(1)),
      },
      comparison: {
        against: 'one 60 Hz frame (16.7 ms) for a change, 1 s for an interactive overview',
        ratios: { change_p95_over_frame: Number((percentile(latencies, 95) / 16.7).toFixed(2)), launch_cold_over_1s: Number((cold / 1000).toFixed(2)) },
        verdict: 'ratios at or below 1 mean a balance change reaches the screen within a frame or two and the overview is usable within a second.',
      },
    }
  } finally {
    await context.close()
    rmSync(userDataDir, { recursive: true, force: true })
    server.close()
  }
}
