/**
 * Operator steps shared by the screen tests, driven by role and accessible name only (the
 * way a keyboard or screen-reader user reaches them), plus README screenshots.
 */
import { mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import type { Locator, Page } from 'playwright-core'
import { exchangeIdentity, exchangeKey, exchangePolicyPath, exchangeTag } from '../../main/core/policy'
import { openPages, repoRoot, type DeskSession } from '../harness'

export const PASSPHRASE = 'Tulip-harbor-Violet-9-anchor'
export const screenshotsDir = join(repoRoot, 'docs/screenshots')

/**
 * Tests never write tracked files: README screenshots are taken only by their own command
 * (`DESK_SCREENSHOTS=1`, see `npm run screenshots`).
 */
export const screenshotsEnabled = (env: NodeJS.ProcessEnv = process.env): boolean => env.DESK_SCREENSHOTS === '1'

/** Saves a README screenshot of the current screen (viewport only, so the images stay comparable). */
export async function shot(page: Page, name: string): Promise<void> {
  if (!screenshotsEnabled()) return
  mkdirSync(screenshotsDir, { recursive: true })
  await page.waitForTimeout(300) // let transitions settle
  await page.screenshot({ path: join(screenshotsDir, `${name}.png`) })
}

/** First run on the sandbox: create the vault, add the sandbox demo accounts, go to the overview. */
export async function firstRun(page: Page): Promise<void> {
  await page.getByRole('textbox', { name: 'New vault passphrase', exact: true }).fill(PASSPHRASE)
  await page.getByRole('textbox', { name: 'Repeat vault passphrase', exact: true }).fill(PASSPHRASE)
  await page.getByRole('button', { name: 'Create vault', exact: true }).click()
  await page.getByRole('button', { name: 'Add the sandbox demo accounts', exact: true }).click()
  await page.getByText(/sandbox accounts added/).waitFor()
  await page.getByRole('button', { name: 'Continue to overview', exact: true }).click()
  await page
    .getByRole('link', { name: /^Open account / })
    .first()
    .waitFor()
}

/** Answers the confirmation dialog main raises before signing; returns its summary text. */
export async function approve(page: Page, passphrase = PASSPHRASE): Promise<string> {
  const dialog = page.getByRole('dialog', { name: 'Confirm signing', exact: true })
  await dialog.waitFor()
  const summary = await dialog.getByRole('list', { name: 'What will be signed', exact: true }).innerText()
  const pass = dialog.getByRole('textbox', { name: 'Confirmation passphrase', exact: true })
  if (await pass.count()) await pass.fill(passphrase)
  await dialog.getByRole('button', { name: 'Approve and sign', exact: true }).click()
  // Done when the dialog closes or shows the next request (multi-step flows ask again at once).
  for (let i = 0; i < 150; i++) {
    if (!(await dialog.isVisible())) break
    const now = await dialog
      .getByRole('list', { name: 'What will be signed', exact: true })
      .innerText({ timeout: 300 })
      .catch(() => '')
    if (now !== summary) break
    await page.waitForTimeout(200)
  }
  return summary
}

/** Goes to a screen through the main navigation. */
export async function nav(
  page: Page,
  name: 'Overview' | 'Credit health' | 'Agents' | 'Settle and repay' | 'Earn' | 'Journal' | 'Policy' | 'Reports' | 'Settings',
): Promise<void> {
  await page.getByRole('navigation', { name: 'Main', exact: true }).getByRole('link', { name }).click()
}

/** The submission tracker's state once it reaches one of `states`. */
export async function waitForSubmission(page: Page, states: RegExp, timeout = 30_000): Promise<string> {
  const tag = page.getByTestId('submission-state').last()
  await page.waitForFunction(
    ([re]) => {
      const els = document.querySelectorAll('[data-testid="submission-state"]')
      const last = els[els.length - 1]
      return !!last && new RegExp(re as string).test(last.textContent ?? '')
    },
    [states.source],
    { timeout },
  )
  return (await tag.innerText()).trim()
}

/**
 * Picks an option of a labelled native select by the visible text it contains, or by its value
 * (an account picker shows a name and a short address; its value is the full address).
 */
export async function choose(page: Page, label: string, text: string | RegExp): Promise<void> {
  const select = page.getByRole('combobox', { name: label, exact: true })
  const test = (o: string) => (typeof text === 'string' ? o.includes(text) : text.test(o))
  const matches = (o: { label: string; value: string }) => test(o.label) || test(o.value) || test(o.value.toLowerCase())
  // Options fill in as the accounts and assets load: wait for the one we want.
  let options: { label: string; value: string }[] = []
  for (let i = 0; i < 60; i++) {
    options = await select
      .locator('option:not([disabled])')
      .evaluateAll((os) => os.map((o) => ({ label: (o as HTMLOptionElement).label, value: (o as HTMLOptionElement).value })))
    if (options.some(matches)) break
    await page.waitForTimeout(250)
  }
  const match = options.find(matches)
  if (!match) throw new Error(`no option ${String(text)} in ${label}: ${options.map((o) => o.label).join(' | ')}`)
  await select.selectOption({ value: match.value })
}

/** Approves every confirmation main raises until `done` is visible (multi-step flows such as a rotation). */
export async function approveUntil(page: Page, done: Locator, timeoutMs = 60_000, passphrase = PASSPHRASE): Promise<string[]> {
  const dialog = page.getByRole('dialog', { name: 'Confirm signing' })
  const titles: string[] = []
  const until = Date.now() + timeoutMs
  while (Date.now() < until) {
    if (await done.isVisible()) return titles
    if (await dialog.isVisible()) {
      titles.push((await dialog.innerText()).split('\n')[0] ?? '')
      await approve(page, passphrase)
      continue
    }
    await page.waitForTimeout(200)
  }
  throw new Error(`not done after ${timeoutMs} ms; approved: ${titles.join(' | ')}`)
}

/** Calls the sandbox's loopback admin API (faults, fast-forwards) at the selected network's trading URL. */
export async function sandboxAdmin(desk: DeskSession, route: string, body?: unknown): Promise<unknown> {
  const r = await desk.core.dispatch('networks.list', undefined, { host: 'test' })
  if (!r.ok) throw new Error(`networks.list: ${r.error.code}`)
  const { selected, networks } = r.value as { selected: string; networks: { name: string; tradingUrl: string }[] }
  const base = networks.find((n) => n.name === selected)?.tradingUrl
  if (!base) throw new Error('no trading URL for the selected network')
  // No body: a GET (ground truth); with a body: a POST (faults, fast-forwards).
  const res = await fetch(
    new URL(`/admin/${route}`, base),
    body === undefined ? {} : { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) },
  )
  if (!res.ok) throw new Error(`admin ${route}: HTTP ${res.status} ${await res.text()}`)
  return res.json()
}

/**
 * A new tab of the same app on `route` (the app's own hash route; the token is in the URL it was
 * served at), so several screens can be watched side by side. The caller closes it.
 */
export async function openTab(desk: DeskSession, route: string): Promise<Page> {
  const p = await desk.page.context().newPage()
  openPages.add(p)
  p.on('close', () => openPages.delete(p))
  await p.goto(desk.web.url)
  await p.getByRole('navigation', { name: 'Main', exact: true }).waitFor()
  // The app settles its own start route first (token, unlock state): set ours until it sticks.
  for (let i = 0; i < 20; i++) {
    await p.evaluate((r) => {
      if (location.hash !== r) location.hash = r
    }, `#${route}`)
    await p.waitForTimeout(250)
    if ((await p.evaluate(() => location.hash)) === `#${route}`) break
  }
  return p
}

/**
 * The operator's earlier, matured choice of a short cooling-off on the sandbox exchange (written
 * as the policy engine persists it, keyed by the exchange), so a test need not wait out 60 s
 * for a new address-book entry.
 */
export function seedCoolingOff(desk: DeskSession, ms: number): void {
  const x = exchangeIdentity({ chainId: 424242, tradingUrl: desk.desk.sandbox.tradingUrl, earnUrl: desk.desk.sandbox.earnUrl })
  writeFileSync(
    exchangePolicyPath(desk.dataDir, exchangeTag(x)),
    JSON.stringify({
      version: 1,
      network: exchangeKey(x),
      rules: { 'cooling-off': String(ms) },
      pending: [],
      addresses: [],
      halted: null,
      exchange: { ...x, kind: 'sandbox' },
      aliases: ['sandbox'],
    }),
  )
}
