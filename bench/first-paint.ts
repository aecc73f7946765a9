/**
 * First paint from cache alone (issue 25), the scale bench's phase 3 without its other phases:
 * a data dir with N accounts read once from a live sandbox (in its own process), the sandbox
 * stopped, a new core over the data dir and the loopback web host, then page navigation in
 * Chromium to cached rows painted with their age, 1 + LOADS loads (the first warms Chromium's
 * caches and is not counted), exactly as bench/scale.bench.ts measures it.
 *
 *   npx tsx bench/first-paint.ts                      # 50 and 200 accounts
 *   FIRST_PAINT_ACCOUNTS=200 FIRST_PAINT_KEEP=/tmp/fp200 npx tsx bench/first-paint.ts
 *       keeps (and on later runs reuses) the data dir, so a renderer change is measured in seconds
 *   FIRST_PAINT_TRACE=/tmp/fp-trace  writes a CDP CPU profile of each counted load there
 *   FIRST_PAINT_RENDERER=out/renderer-web-dev  another renderer build to serve; several, comma-separated,
 *       take turns load by load (an A/B comparison on a shared machine), each with its own figures
 *
 * Beside the wall clock (which carries the machine's load) each load reports the page's own
 * main-thread time from CDP Performance.getMetrics (script, layout, style, task), and the
 * navigation timing marks, so a change can be judged on a shared machine.
 */
import { existsSync, mkdirSync, rmSync, writeFileSync } from 'node:fs'
import { loadavg } from 'node:os'
import { monitorEventLoopDelay } from 'node:perf_hooks'
import { isAbsolute, join } from 'node:path'
import type { OverviewView } from '../main/contract/types'
import { startWebHost } from '../main/hosts/web/server'
import { launchBrowser, repoRoot } from '../e2e/harness'
import { BENCH_PASSPHRASE, call, openCore, prepareDataDirOn, type SandboxUrls } from './desk-fixture'
import { median } from './judge'
import { startSandboxProcess } from './sandbox-child'

const SIZES = (process.env.FIRST_PAINT_ACCOUNTS ?? '50,200').split(',').map((x) => Number(x.trim()))
const LOADS = Number(process.env.FIRST_PAINT_LOADS ?? 5)
const KEEP = process.env.FIRST_PAINT_KEEP
const TRACE = process.env.FIRST_PAINT_TRACE
/** FIRST_PAINT_CHROME_TRACE=1: a Chromium trace of each counted load, summarised as main-thread time per event name. */
const CHROME_TRACE = process.env.FIRST_PAINT_CHROME_TRACE === '1'
const RENDERERS = (process.env.FIRST_PAINT_RENDERER ?? 'out/renderer-web').split(',')
const DETAIL = process.env.FIRST_PAINT_DETAIL === '1'
/** The page's bridge socket, timed: open, each call sent and answered (channel, ms since navigation start, bytes). */
const RECORD_BRIDGE = `(() => {
  const log = (window.__bridgeLog = [])
  window.__frames = []
  try {
    new PerformanceObserver((l) => { for (const e of l.getEntries()) window.__frames.push(e.toJSON()) }).observe({ type: 'long-animation-frame', buffered: true })
  } catch {}
  new MutationObserver((_, obs) => {
    const rows = document.querySelectorAll('[data-testid="overview-table"] tr')
    for (const r of rows) if (/Bench|Treasury/.test(r.textContent || '') && /ago/.test(r.textContent || '')) { log.push('PAINTED ' + t()); obs.disconnect(); return }
  }).observe(document, { subtree: true, childList: true, characterData: true })
  const Orig = window.WebSocket
  const t = () => Math.round(performance.now())
  window.WebSocket = class extends Orig {
    constructor(url, p) {
      super(url, p)
      log.push('ws new ' + t())
      const sent = new Map()
      this.addEventListener('open', () => log.push('ws open ' + t()))
      const send = this.send.bind(this)
      this.send = (d) => { try { const m = JSON.parse(d); sent.set(m.id, m.channel); log.push('> ' + m.channel + ' ' + t()) } catch {} ; send(d) }
      this.addEventListener('message', (m) => { try { const x = JSON.parse(m.data); log.push('< ' + (x.id != null ? sent.get(x.id) : 'ev:' + x.event) + ' ' + t() + ' ' + String(m.data).length + 'B') } catch {} })
    }
  }
})()`
/** A long animation frame (LoAF entry): when, how long, the script part, the style and layout part, and its scripts over 5 ms. */
function describeFrame(f: Record<string, unknown>): string {
  const n = (k: string) => Math.round(Number(f[k] ?? 0))
  const scripts = ((f.scripts as Record<string, unknown>[]) ?? [])
    .filter((x) => Number(x.duration) >= 5)
    .map((x) => `${String(x.invoker).slice(0, 50)} ${Math.round(Number(x.duration))} ms`)
    .join('; ')
  const render = n('renderStart') ? n('startTime') + n('duration') - n('renderStart') : 0
  const layout = n('styleAndLayoutStart') ? n('startTime') + n('duration') - n('styleAndLayoutStart') : 0
  return `${n('startTime')} +${n('duration')} ms: rendering ${render} ms (style and layout ${layout} ms); ${scripts}`
}
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))
const load = () =>
  loadavg()
    .map((x) => x.toFixed(1))
    .join(' ')

/** A data dir whose cache holds all `n` rows read from a live sandbox; returns its (now dead) URLs. */
async function prepare(n: number, dir: string | undefined): Promise<{ dataDir: string; urls: SandboxUrls }> {
  const marker = dir ? join(dir, 'first-paint-urls.json') : ''
  if (dir && existsSync(marker)) {
    const urls = JSON.parse(await import('node:fs').then((fs) => fs.readFileSync(marker, 'utf8'))) as SandboxUrls
    return { dataDir: dir, urls }
  }
  if (dir) mkdirSync(dir, { recursive: true })
  const sandbox = await startSandboxProcess()
  try {
    const { dataDir } = await prepareDataDirOn(sandbox.urls, sandbox.deposit, dir, n)
    const core = await openCore(dataDir, sandbox.urls)
    try {
      await call(core, 'vault.unlock', { passphrase: BENCH_PASSPHRASE })
      const deadline = Date.now() + Math.max(60_000, n * 1_000)
      for (;;) {
        const o = await call<OverviewView>(core, 'portfolio.overview')
        const read = o.rows.filter((r) => r.fetchedAt !== null).length
        if (read === n || Date.now() > deadline) {
          process.stderr.write(`  first-paint: ${n} accounts, ${read} read into the cache\n`)
          break
        }
        await sleep(2_000)
      }
      await sleep(1_000) // the last-known writes settle
    } finally {
      await core.close()
    }
    if (marker) writeFileSync(marker, JSON.stringify(sandbox.urls))
    return { dataDir, urls: sandbox.urls }
  } finally {
    await sandbox.stop()
  }
}

type TraceEvent = {
  name: string
  ph: string
  ts: number
  dur?: number
  tdur?: number
  pid: number
  tid: number
  args?: Record<string, unknown>
}

/** Starts a browser-wide trace; the returned function ends it and sums the renderer main thread's self time per event name. */
async function startChromeTrace(browser: Awaited<ReturnType<typeof launchBrowser>>): Promise<() => Promise<string>> {
  const cdp = await browser.browser!.newBrowserCDPSession()
  const events: TraceEvent[] = []
  cdp.on('Tracing.dataCollected', (d) => void events.push(...(d.value as unknown as TraceEvent[])))
  await cdp.send('Tracing.start', {
    traceConfig: { includedCategories: ['devtools.timeline', 'v8', 'blink', 'loading', 'disabled-by-default-devtools.timeline'] },
    transferMode: 'ReportEvents',
  })
  return async () => {
    const done = new Promise<void>((r) => cdp.once('Tracing.tracingComplete', () => r()))
    await cdp.send('Tracing.end')
    await done
    // The renderer main threads: the one with the most complete events is this page's.
    const mains = events.filter((e) => e.name === 'thread_name' && e.args?.name === 'CrRendererMain')
    let best: TraceEvent[] = []
    for (const m of mains) {
      const own = events.filter((e) => e.pid === m.pid && e.tid === m.tid && e.ph === 'X' && e.dur !== undefined)
      if (own.length > best.length) best = own
    }
    best.sort((a, b) => a.ts - b.ts || (b.dur ?? 0) - (a.dur ?? 0))
    // Self time: an event's duration less its direct children's (a stack over the sorted events).
    const self = new Map<string, number>()
    const stack: TraceEvent[] = []
    for (const e of best) {
      while (stack.length && stack[stack.length - 1]!.ts + stack[stack.length - 1]!.dur! <= e.ts) stack.pop()
      const parent = stack[stack.length - 1]
      if (parent) self.set(parent.name, (self.get(parent.name) ?? 0) - e.dur!)
      self.set(e.name, (self.get(e.name) ?? 0) + e.dur!)
      stack.push(e)
    }
    await cdp.detach()
    return [...self]
      .filter(([, us]) => us >= 2000)
      .sort((a, b) => b[1] - a[1])
      .map(([name, us]) => `${name} ${Math.round(us / 1000)}`)
      .join(', ')
  }
}

interface LoadResult {
  renderer: number
  ms: number
  metrics: Record<string, number>
  nav: Record<string, unknown>
}

async function measure(n: number): Promise<LoadResult[]> {
  const dir = KEEP ? `${KEEP}-${n}` : undefined
  const { dataDir, urls } = await prepare(n, dir)
  const core = await openCore(dataDir, urls)
  await call(core, 'vault.unlock', { passphrase: BENCH_PASSPHRASE })
  const webs = await Promise.all(
    RENDERERS.map((r) => startWebHost({ core, rendererRoot: isAbsolute(r) ? r : join(repoRoot, r), log: () => {} })),
  )
  const browser = await launchBrowser()
  const results: LoadResult[] = []
  try {
    for (let k = 0; k < (LOADS + 1) * webs.length; k++) {
      const i = Math.floor(k / webs.length)
      const which = k % webs.length
      const web = webs[which]!
      const page = await browser.context.newPage()
      if (DETAIL) await page.addInitScript(RECORD_BRIDGE)
      const cdp = await page.context().newCDPSession(page)
      await cdp.send('Performance.enable', { timeDomain: 'threadTicks' })
      const profiling = TRACE && i > 0
      if (profiling) {
        await cdp.send('Profiler.enable')
        await cdp.send('Profiler.setSamplingInterval', { interval: 200 })
        await cdp.send('Profiler.start')
      }
      const tracing = CHROME_TRACE && i > 0 ? await startChromeTrace(browser) : null
      const loop = monitorEventLoopDelay({ resolution: 5 })
      loop.enable()
      const cpu0 = process.cpuUsage()
      const p0 = performance.now()
      await page.goto(web.url)
      const painted = await page
        .waitForFunction(
          () =>
            [...document.querySelectorAll('[data-testid="overview-table"] tr')].some(
              (r) => /Bench|Treasury/.test(r.textContent || '') && /\d/.test(r.textContent || '') && /ago/.test(r.textContent || ''),
            ),
          undefined,
          { timeout: i === 0 ? 15_000 : 5_000, polling: 'raf' },
        )
        .then(
          () => true,
          () => false,
        )
      const ms = painted ? performance.now() - p0 : Infinity
      loop.disable()
      const cpu = process.cpuUsage(cpu0)
      const hostCpuMs = (cpu.user + cpu.system) / 1000
      const inPage = await page.evaluate(() => {
        const nav = performance.getEntriesByType('navigation')[0] as PerformanceNavigationTiming | undefined
        const fcp = performance.getEntriesByName('first-contentful-paint')[0]
        return {
          responseEnd: nav?.responseEnd ?? -1,
          domInteractive: nav?.domInteractive ?? -1,
          domContentLoaded: nav?.domContentLoadedEventEnd ?? -1,
          loadEnd: nav?.loadEventEnd ?? -1,
          fcp: fcp?.startTime ?? -1,
          now: performance.now(),
          rows: document.querySelectorAll('[data-testid="overview-table"] tbody tr').length,
          resources: performance
            .getEntriesByType('resource')
            .map((r) => {
              const e = r as PerformanceResourceTiming
              return `${e.name.replace(/.*\//, '').slice(0, 12)} ${Math.round(e.startTime)}-${Math.round(e.responseEnd)}${e.transferSize === 0 ? ' cached' : ''}`
            })
            .join(', '),
          bridge: [
            ...((window as unknown as { __bridgeLog?: string[] }).__bridgeLog ?? []),
            ...performance.getEntriesByType('mark').map((m) => `${m.name} ${Math.round(m.startTime)}`),
          ].join(', '),
          frames: (window as unknown as { __frames?: Record<string, unknown>[] }).__frames ?? [],
        }
      })
      if (DETAIL)
        process.stderr.write(
          `    host process (core + web host + Playwright client): CPU ${Math.round(hostCpuMs)} ms, event loop delay max ${Math.round(loop.max / 1e6)} ms, p99 ${Math.round(loop.percentile(99) / 1e6)} ms\n`,
        )
      if (DETAIL)
        process.stderr.write(
          `    resources: ${inPage.resources}\n    bridge: ${inPage.bridge}\n    long frames:\n      ${inPage.frames.map(describeFrame).join('\n      ')}\n`,
        )
      const m = (await cdp.send('Performance.getMetrics')) as { metrics: { name: string; value: number }[] }
      const pick = (k: string) => m.metrics.find((x) => x.name === k)?.value ?? NaN
      const metrics = {
        scriptMs: pick('ScriptDuration') * 1000,
        layoutMs: pick('LayoutDuration') * 1000,
        styleMs: pick('RecalcStyleDuration') * 1000,
        taskMs: pick('TaskDuration') * 1000,
        nodes: pick('Nodes'),
      }
      if (tracing) process.stderr.write(`    main thread of the page, self time by event (ms): ${await tracing()}\n`)
      if (profiling) {
        const { profile } = (await cdp.send('Profiler.stop')) as { profile: unknown }
        mkdirSync(TRACE, { recursive: true })
        writeFileSync(join(TRACE, `paint-${n}-${i}.cpuprofile`), JSON.stringify(profile))
      }
      if (i > 0) results.push({ renderer: which, ms, metrics, nav: inPage })
      process.stderr.write(
        `  first-paint ${n}${webs.length > 1 ? ` [${RENDERERS[which]}]` : ''}: load ${i}${i === 0 ? ' (warm-up)' : ''} ${Number.isFinite(ms) ? Math.round(ms) : 'not painted'} ms; ` +
          `page: response ${Math.round(inPage.responseEnd)} / DCL ${Math.round(inPage.domContentLoaded)} / FCP ${Math.round(inPage.fcp)} ms, ` +
          `${inPage.rows} rows rendered; main thread: task ${Math.round(metrics.taskMs)} script ${Math.round(metrics.scriptMs)} ` +
          `style ${Math.round(metrics.styleMs)} layout ${Math.round(metrics.layoutMs)} ms, ${metrics.nodes} nodes; load avg ${load()}\n`,
      )
      if (process.env.FIRST_PAINT_PATCH === '1' && painted) {
        // A re-render of every row with the same keys (as a pushed overview gives): the filter set to
        // what every address holds, timed in the page from the input to the next frame.
        await page.waitForTimeout(800)
        const patchMs = await page.evaluate(`new Promise((resolve) => {
          const input = document.querySelector('input[aria-label="Filter accounts"]')
          const t0 = performance.now()
          input.value = '0x'
          input.dispatchEvent(new Event('input', { bubbles: true }))
          requestAnimationFrame(() => setTimeout(() => resolve(performance.now() - t0)))
        })`)
        process.stderr.write(
          `    every row re-rendered (filter input to the next frame): ${Math.round(Number(patchMs))} ms, ${await page.locator('[data-testid="overview-table"] tbody tr').count()} rows\n`,
        )
      }
      if (process.env.FIRST_PAINT_SHOT) await page.screenshot({ path: process.env.FIRST_PAINT_SHOT })
      await page.close()
    }
  } finally {
    await browser.close()
    for (const web of webs) await web.close()
    await core.close()
    if (!dir) rmSync(dataDir, { recursive: true, force: true })
  }
  return results
}

const r0 = (x: number) => (Number.isFinite(x) ? Math.round(x) : 'not painted')
for (const n of SIZES) {
  const loadBefore = load()
  const all = await measure(n)
  for (const [which, name] of RENDERERS.entries()) {
    const rs = all.filter((r) => r.renderer === which)
    const med = (f: (r: LoadResult) => number) => r0(median(rs.map(f)))
    process.stdout.write(
      `${n} accounts${RENDERERS.length > 1 ? ` [${name}]` : ''}: first paint median ${med((r) => r.ms)} ms (${rs.map((r) => r0(r.ms)).join(' / ')}); ` +
        `page main thread median: task ${med((r) => r.metrics.taskMs!)} / script ${med((r) => r.metrics.scriptMs!)} / ` +
        `style ${med((r) => r.metrics.styleMs!)} / layout ${med((r) => r.metrics.layoutMs!)} ms; ` +
        `load average ${loadBefore} -> ${load()}\n`,
    )
  }
}
process.exit(0)
