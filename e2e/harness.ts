import { execFileSync } from 'node:child_process'
import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core'
import type { DeskCore } from '../main/core/app/compose'
import { startDeskOnSandbox, type DeskOnSandbox } from '../main/testing/desk-on-sandbox'
import type { StartSandboxOptions } from '../sandbox'
import { startWebHost, type WebHost } from '../main/hosts/web/server'

export const repoRoot = fileURLToPath(new URL('..', import.meta.url))
export const artifactsDir = join(repoRoot, 'e2e/artifacts')

/** Debian's Chromium (`chromium` on the PATH) or $CHROME_PATH. */
export function findChromium(): string {
  const fromEnv = process.env.CHROME_PATH
  if (fromEnv && existsSync(fromEnv)) return fromEnv
  for (const name of ['chromium', 'chromium-browser', 'google-chrome']) {
    try {
      const p = execFileSync('sh', ['-c', `command -v ${name}`], { encoding: 'utf8' }).trim()
      if (p) return p
    } catch {
      // not on the PATH; try the next name
    }
  }
  throw new Error('Chromium not found: install it (Debian/Ubuntu: apt-get install -y chromium) or set CHROME_PATH.')
}

export const CHROMIUM_FLAGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
]

/** Launches headless Chromium with a fresh user-data dir; close() removes it. */
export async function launchBrowser(): Promise<{ context: BrowserContext; browser: Browser | null; close(): Promise<void> }> {
  const userDataDir = mkdtempSync(join(tmpdir(), 'desk-chromium-'))
  const context = await chromium.launchPersistentContext(userDataDir, {
    executablePath: findChromium(),
    headless: true,
    args: CHROMIUM_FLAGS,
    viewport: { width: 1440, height: 900 },
  })
  return {
    context,
    browser: context.browser(),
    async close() {
      await context.close()
      rmSync(userDataDir, { recursive: true, force: true })
    },
  }
}

/** Pages open right now; the setup file screenshots them when a test fails. */
export const openPages = new Set<Page>()

export async function screenshotOpenPages(testName: string): Promise<void> {
  mkdirSync(artifactsDir, { recursive: true })
  const base = testName
    .replace(/[^a-z0-9]+/gi, '-')
    .toLowerCase()
    .slice(0, 80)
  let i = 0
  for (const page of openPages) {
    await page.screenshot({ path: join(artifactsDir, `${base}-${i++}.png`), fullPage: true }).catch(() => {})
  }
}

export interface DeskSession {
  core: DeskCore
  /** The sandbox the core talks to (admin faults, ground truth). */
  desk: DeskOnSandbox
  web: WebHost
  page: Page
  dataDir: string
  /** Every bridge message in both directions, for the key-leak search. */
  messages: string[]
  close(): Promise<void>
}

export interface OpenDeskOptions {
  /** Reuse a data directory (vault, journal) prepared by the test. */
  dataDir?: string
  /** Open the page (default true). */
  open?: boolean
  /** Sandbox options (fault-free, no bot, no rate limits by default). */
  sandbox?: StartSandboxOptions
  /** Background overview push cadence (ms); default 1000. */
  overviewRefreshMs?: number
}

/**
 * Starts the core on a fresh data directory, the loopback web host over it, and Chromium at
 * the host's URL. Failing tests keep a screenshot under e2e/artifacts/.
 */
export async function openDesk(opts: OpenDeskOptions = {}): Promise<DeskSession> {
  const dataDir = opts.dataDir ?? mkdtempSync(join(tmpdir(), 'desk-e2e-'))
  const desk = await startDeskOnSandbox({
    dataDir,
    overviewRefreshMs: opts.overviewRefreshMs ?? 1000,
    ...(opts.sandbox ? { sandbox: opts.sandbox } : {}),
  })
  const core = desk.core
  const messages: string[] = []
  const web = await startWebHost({
    core,
    rendererRoot: join(repoRoot, 'out/renderer-web'),
    tap: (dir, text) => messages.push(`${dir} ${text}`),
  })
  const browser = await launchBrowser()
  const page = await browser.context.newPage()
  openPages.add(page)
  page.on('close', () => openPages.delete(page))
  if (opts.open !== false) await page.goto(web.url)
  return {
    core,
    desk,
    web,
    page,
    dataDir,
    messages,
    async close() {
      await browser.close()
      await web.close()
      await desk.close()
      if (!opts.dataDir) rmSync(dataDir, { recursive: true, force: true })
    },
  }
}
