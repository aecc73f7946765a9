/**
 * Team-mode browser tests' shared steps: a second desk (own data directory and vault) on the first
 * desk's sandbox in its own browser, connecting a desk to the team store from its Team screen, the
 * main navigation to the team screens, and axe-core's critical and serious findings.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { createRequire } from 'node:module'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Page } from 'playwright-core'
import { createDeskCore, type DeskCore } from '../../main/core/app/compose'
import { sandboxNetwork } from '../../main/core/config/networks'
import { SettingsStore } from '../../main/core/config/settings'
import { headlessHostServices } from '../../main/core/features/host'
import { startWebHost, type WebHost } from '../../main/hosts/web/server'
import { demoAccounts } from '../../main/testing/desk-on-sandbox'
import type { PostgresHandle } from '../../main/testing/postgres'
import { launchBrowser, openPages, repoRoot, type DeskSession } from '../harness'
import { PASSPHRASE } from '../screens/helpers'

const axePath = createRequire(import.meta.url).resolve('axe-core')

/** axe-core's critical and serious violations on the page as it stands. */
export async function violations(page: Page): Promise<string[]> {
  if (!(await page.evaluate(() => 'axe' in window))) await page.evaluate(readFileSync(axePath, 'utf8'))
  await page.waitForTimeout(300)
  return page.evaluate(async () => {
    const axe = (window as unknown as { axe: typeof import('axe-core') }).axe
    const r = await axe.run(document, { resultTypes: ['violations'] })
    return r.violations
      .filter((v) => v.impact === 'critical' || v.impact === 'serious')
      .flatMap((v) => v.nodes.map((n) => `${v.id} (${v.impact}): ${n.target.join(' ')} — ${n.failureSummary ?? ''}`))
  })
}

export interface SecondDesk {
  core: DeskCore
  web: WebHost
  page: Page
  dataDir: string
  close(): Promise<void>
}

/** A second desk (own data directory and vault) on the first desk's sandbox, in its own browser. */
export async function openSecondDesk(first: DeskSession): Promise<SecondDesk> {
  const sandbox = first.desk.sandbox
  const dataDir = mkdtempSync(join(tmpdir(), 'desk-e2e-b-'))
  new SettingsStore(dataDir).saveNetwork({
    ...sandboxNetwork({ trading: Number(new URL(sandbox.tradingUrl).port), earn: Number(new URL(sandbox.earnUrl).port) }),
    infoRatePerSec: 200,
    tradeRatePerSec: 200,
    strictLimits: false,
  })
  const core = await createDeskCore({
    dataDir,
    host: 'web',
    version: '0.0.0-test',
    services: headlessHostServices,
    startSandbox: async () => ({
      tradingUrl: sandbox.tradingUrl,
      wsUrl: sandbox.wsUrl,
      earnUrl: sandbox.earnUrl,
      chainId: sandbox.chainId,
      stop: async () => {},
    }),
    demoAccounts,
    alerts: false,
    overviewRefreshMs: 1000,
    scryptN: 2 ** 12,
  })
  const web = await startWebHost({ core, rendererRoot: join(repoRoot, 'out/renderer-web') })
  const browser = await launchBrowser()
  const page = await browser.context.newPage()
  openPages.add(page)
  page.on('close', () => openPages.delete(page))
  await page.goto(web.url)
  return {
    core,
    web,
    page,
    dataDir,
    async close() {
      await browser.close()
      await web.close()
      await core.close()
      rmSync(dataDir, { recursive: true, force: true })
    },
  }
}

/** Goes to a team screen through the main navigation (its link carries the approvals count). */
export const go = (page: Page, name: 'Team' | 'Approvals' | 'Policy' | 'Journal') =>
  page
    .getByRole('navigation', { name: 'Main', exact: true })
    .getByRole('link', { name: new RegExp(`^${name}`) })
    .click()

/** Points a desk at the team store through its Team screen. */
export async function connect(page: Page, db: PostgresHandle): Promise<void> {
  await go(page, 'Team')
  await page.getByRole('textbox', { name: 'Connection string', exact: true }).fill(db.connectionString)
  await page.getByRole('textbox', { name: 'Database password', exact: true }).fill(db.password)
  await page.getByRole('textbox', { name: 'Vault passphrase to seal the password', exact: true }).fill(PASSPHRASE)
  await page.getByRole('button', { name: 'Connect to the team store', exact: true }).click()
}
