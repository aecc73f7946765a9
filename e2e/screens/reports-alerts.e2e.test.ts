/**
 * Reports and alerts as an operator uses them in the browser: trades and transfers happen on
 * the sandbox, the Reports screen exports fills and transfers CSV for a date range (fees present,
 * amounts in units) and shows realised PnL; an alert raised by main (funds received) is in the
 * notification panel after a reload and is acknowledged there; Settings > Alerts sets quiet
 * hours. axe-core (0 critical/serious) on the Reports screen, the panel and the settings section.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { createRequire } from 'node:module'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { AlertSettingsView, AlertView } from '../../main/contract/types'
import { startWebHost, type WebHost } from '../../main/hosts/web/server'
import { startDeskOnSandbox, type DeskOnSandbox } from '../../main/testing/desk-on-sandbox'
import type { TradeAction } from '../../main/core/wire/actions'
import { accepted, actionSender } from '../../sandbox/scenario/signed-actions'
import { devOwner } from '../../sandbox/scenario/dev-keys'
import { launchBrowser, repoRoot } from '../harness'
import { firstRun, nav, shot } from './helpers'

const axePath = createRequire(import.meta.url).resolve('axe-core')

/** Dismisses the toasts in the corner (errors stay until dismissed), so a screenshot shows the screen. */
async function dismissToasts(page: Page): Promise<void> {
  const buttons = page.getByRole('region', { name: 'Recent notifications', exact: true }).getByRole('button', { name: /^Dismiss / })
  for (let i = 0; i < 20 && (await buttons.count()) > 0; i++) await buttons.first().click()
}

/** Critical and serious axe-core violations inside `selector` (colour contrast included: a real browser). */
async function violations(page: Page, selector = 'body'): Promise<string[]> {
  if (!(await page.evaluate(() => 'axe' in window))) await page.evaluate(readFileSync(axePath, 'utf8'))
  await page.waitForTimeout(300) // let transitions settle
  return page.evaluate(async (sel) => {
    const axe = (window as unknown as { axe: typeof import('axe-core') }).axe
    const r = await axe.run(document.querySelector(sel)!, { resultTypes: ['violations'] })
    return r.violations
      .filter((v) => v.impact === 'critical' || v.impact === 'serious')
      .flatMap((v) => v.nodes.map((n) => `${v.id} (${v.impact}): ${n.target.join(' ')} — ${n.failureSummary ?? ''}`))
  }, selector)
}

/** RFC 4180 records keyed by the header (quoted fields, doubled quotes, CRLF). */
function records(text: string): Record<string, string>[] {
  const rows: string[][] = []
  let row: string[] = []
  let cell = ''
  let quoted = false
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!
    if (quoted) {
      if (c === '"' && text[i + 1] === '"') {
        cell += '"'
        i++
      } else if (c === '"') quoted = false
      else cell += c
    } else if (c === '"') quoted = true
    else if (c === ',') {
      row.push(cell)
      cell = ''
    } else if (c === '\r' && text[i + 1] === '\n') {
      row.push(cell)
      rows.push(row)
      row = []
      cell = ''
      i++
    } else cell += c
  }
  const [head, ...body] = rows
  return body.map((r) => Object.fromEntries(head!.map((h, i) => [h, r[i] ?? ''])))
}

const pad = (n: number) => String(n).padStart(2, '0')
/** A datetime-local value in the browser's (the operator's) zone; the test and Chromium share the machine's zone. */
const local = (ms: number) => {
  const d = new Date(ms)
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}T${pad(d.getHours())}:${pad(d.getMinutes())}`
}

describe('reports and alerts', () => {
  let desk: DeskOnSandbox
  let web: WebHost
  let browser: Awaited<ReturnType<typeof launchBrowser>>
  let page: Page
  let dataDir: string
  const o0 = devOwner(0).address
  const o1 = devOwner(1).address
  const o2 = devOwner(2).address
  const alerts = async () => {
    const r = await desk.core.dispatch('alerts.list', {}, { host: 'test' })
    if (!r.ok) throw new Error(r.error.code)
    return r.value as AlertView[]
  }

  beforeAll(async () => {
    // openDesk with alerts evaluated (a long-running host evaluates them; the shared harness turns them off)
    dataDir = mkdtempSync(join(tmpdir(), 'desk-e2e-'))
    desk = await startDeskOnSandbox({ dataDir, overviewRefreshMs: 1000, alerts: true })
    web = await startWebHost({ core: desk.core, rendererRoot: join(repoRoot, 'out/renderer-web') })
    browser = await launchBrowser()
    page = await browser.context.newPage()
    await page.goto(web.url)
    await firstRun(page)
    // evaluate every second, so the test need not wait a minute for the pass
    const r = await desk.core.dispatch('alerts.settings.update', { checkIntervalSec: 1 }, { host: 'test' })
    expect(r.ok).toBe(true)
  })
  afterAll(async () => {
    await browser?.close()
    await web?.close()
    await desk?.close()
    if (dataDir) rmSync(dataDir, { recursive: true, force: true })
  })

  it('exports fills and transfers CSV for a date range from the Reports screen, and shows realised PnL', async () => {
    const t0 = Date.now() - 60_000
    // owner 1 rests a bid and later an ask, owner 0 takes both: fees on both sides, a closed lot for owner 1
    const s0 = actionSender(desk.sandbox.trading, devOwner(0).privateKey, 'e2e-reports-0')
    const s1 = actionSender(desk.sandbox.trading, devOwner(1).privateKey, 'e2e-reports-1')
    const order = (side: 'bid' | 'ask', price: string, quantity: string, tif: 'gtc' | 'ioc') =>
      ({ type: 'order', market_id: '1', side, order_type: 'limit', tif, price, quantity }) as TradeAction
    for (const [s, a] of [
      [s1, order('bid', '64000', '0.02', 'gtc')],
      [s0, order('ask', '64000', '0.02', 'ioc')],
      [s1, order('ask', '65000', '0.01', 'gtc')],
      [s0, order('bid', '65000', '0.01', 'ioc')],
    ] as const) {
      const res = await s.send(a)
      expect(accepted(res), JSON.stringify(res.body)).toBe(true)
    }
    // funds arrive for owner 2 from the exchange's faucet, and owner 2 withdraws some
    desk.sandbox.trading.deposit(o2 as `0x${string}`, 1, 12_345_000_000n) // 123.45 USDC
    await new Promise((r) => setTimeout(r, 400))
    const s2 = actionSender(desk.sandbox.trading, devOwner(2).privateKey, 'e2e-reports-2')
    const wd = await s2.send({
      type: 'withdraw',
      asset_id: '1',
      amount: '500000000',
      dst_chain_id: '1',
      dst_address: o0,
      withdraw_nonce: String(Date.now()),
      cloid: `0x${'cd'.repeat(16)}`,
    } as TradeAction)
    expect(accepted(wd), JSON.stringify(wd.body)).toBe(true)
    await new Promise((r) => setTimeout(r, 400))

    await page.getByRole('navigation', { name: 'Main', exact: true }).getByRole('link', { name: 'Reports', exact: true }).click()
    const form = page.getByRole('form', { name: 'Report', exact: true })
    // datetime-local pickers have no textbox role: reached by their label
    await form.getByLabel('From', { exact: true }).fill(local(t0))
    await form.getByLabel('To', { exact: true }).fill(local(Date.now() + 120_000))

    // fills, all accounts, USD
    await page.getByRole('combobox', { name: 'Report', exact: true }).selectOption('fills')
    const [fillsDl] = await Promise.all([
      page.waitForEvent('download'),
      form.getByRole('button', { name: 'Export CSV', exact: true }).click(),
    ])
    expect(fillsDl.suggestedFilename()).toMatch(/^fills-all-accounts-.*\.csv$/)
    const fills = records(readFileSync((await fillsDl.path())!, 'utf8'))
    const mine = fills.filter((r) => r.account === o0 || r.account === o1)
    expect(mine).toHaveLength(4)
    for (const r of mine) {
      expect(r.market).toBe('BTC/USDC')
      expect(r.fee).toMatch(/^[0-9]+(\.[0-9]+)?$/) // every fill has its fee, in units
      expect(['BTC', 'USDC']).toContain(r.fee_asset)
      expect(r.value_currency).toBe('USD')
    }
    // amounts in units (not atoms): 0.02 BTC at 64000, notional 1280 USDC; taker fee 3.5 bp of it
    expect(mine.find((r) => r.account === o0 && r.side === 'sell')).toMatchObject({
      price: '64000',
      quantity: '0.02',
      notional: '1280',
      quote_asset: 'USDC',
      role: 'taker',
      fee: '0.448',
      fee_asset: 'USDC',
    })
    await page
      .getByRole('status')
      .filter({ hasText: /^Exported fills-all-accounts-.*\(\d+ rows?\)$/ })
      .waitFor()

    // transfers and withdrawals, owner 2 only
    await page.getByRole('combobox', { name: 'Report', exact: true }).selectOption('transfers')
    await page.getByRole('combobox', { name: 'Account', exact: true }).selectOption({
      label: (
        await page
          .getByRole('combobox', { name: 'Account', exact: true })
          .locator('option')
          .filter({ hasText: `(${o2.slice(0, 6)}…${o2.slice(-4)})` })
          .innerText()
      ).trim(),
    })
    const [trDl] = await Promise.all([page.waitForEvent('download'), form.getByRole('button', { name: 'Export CSV', exact: true }).click()])
    const transfers = records(readFileSync((await trDl.path())!, 'utf8'))
    expect(transfers.find((r) => r.kind === 'deposit' && r.amount === '123.45')).toMatchObject({
      account: o2,
      amount: '123.45',
      asset: 'USDC',
      source: 'exchange',
    })
    expect(transfers.find((r) => r.kind === 'withdrawal')).toMatchObject({
      account: o2,
      amount: '5',
      asset: 'USDC',
      fee: '1',
      fee_asset: 'USDC',
      fee_note: 'recorded, not deducted',
    })

    // realised PnL, all accounts: owner 1 bought 0.02 @ 64000 and sold 0.01 @ 65000 → +10 USDC gross
    await page.getByRole('combobox', { name: 'Account', exact: true }).selectOption({ label: 'All accounts' })
    await form.getByRole('button', { name: 'Show realised PnL', exact: true }).click()
    const table = page.getByRole('table', { name: 'Realised PnL', exact: true })
    const o1row = table.locator('tbody tr').filter({ hasText: `${o1.slice(0, 6)}…${o1.slice(-4)}` })
    await o1row.waitFor()
    const cells = await o1row.locator('td').allInnerTexts()
    expect(cells[1]).toBe('BTC/USDC')
    expect(cells[3]).toBe('0.01 BTC')
    expect(cells[4]).toBe('10 USDC')
    expect(cells[6]).toMatch(/^[0-9.,-]+ USDC$/)
    await dismissToasts(page)
    await shot(page, 'reports')
    expect(await violations(page)).toEqual([])
  })

  it('an alert raised by main is in the notification panel after a reload, and is acknowledged there', async () => {
    // the deposit of the first test raised "funds received" for owner 2
    await expect
      .poll(
        async () => (await alerts()).filter((a) => a.kind === 'funds-received' && a.account?.toLowerCase() === o2.toLowerCase()).length,
        { timeout: 30_000 },
      )
      .toBeGreaterThan(0)
    const alert = (await alerts()).find((a) => a.kind === 'funds-received' && /^123\.45 USDC deposited to /.test(a.message))!
    expect(alert).toBeDefined()

    await page.goto(web.url) // a reload: the panel reads main's record, not this page's memory
    await page.getByRole('navigation', { name: 'Main', exact: true }).waitFor()
    const bell = page.getByRole('button', { name: /^Notifications, \d+ unread$/ })
    await expect.poll(async () => Number(/(\d+) unread/.exec((await bell.getAttribute('aria-label')) ?? '')?.[1] ?? 0)).toBeGreaterThan(0)
    await dismissToasts(page)
    await bell.click()
    const panel = page.getByRole('dialog', { name: 'Notifications', exact: true })
    const list = panel.getByRole('list', { name: 'Alert list', exact: true })
    const item = list.getByRole('listitem').filter({ hasText: alert.message })
    await item.waitFor()
    const text = await item.innerText()
    expect(text).toMatch(/Funds received/i) // kind
    // Time in the operator's zone, and age; a moment on the renderer's clock before main's reads "now", never "0s ago".
    expect(text).toMatch(/\d{4}-\d\d-\d\d \d\d:\d\d:\d\d .*\((\d+[smhd].* ago|now)\)/)
    expect(text).toMatch(/123\.45 USDC deposited to .+ \(0x[0-9a-fA-F]{4}…[0-9a-fA-F]{4}\)/)
    await shot(page, 'notifications-alerts')
    expect(await violations(page, '[role="dialog"][aria-label="Notifications"]')).toEqual([])
    await item.getByRole('button', { name: `Acknowledge alert: ${alert.title}`, exact: true }).click()
    await item.getByText(/^Acknowledged /).waitFor()
    await expect.poll(async () => (await alerts()).find((a) => a.id === alert.id)?.acknowledgedAt ?? null).not.toBeNull()
    const shown = (await alerts()).map((a) => a.id)
    await panel.getByRole('button', { name: 'Acknowledge all alerts', exact: true }).click()
    await panel
      .getByRole('status')
      .filter({ hasText: /alerts? acknowledged$/ })
      .waitFor()
    await expect.poll(async () => (await alerts()).filter((a) => shown.includes(a.id)).every((a) => a.acknowledgedAt !== null)).toBe(true)
    await panel.getByRole('button', { name: 'Close notifications', exact: true }).click()
  })

  it('sets quiet hours in Settings > Alerts, kept by main', async () => {
    await nav(page, 'Settings')
    const form = page.getByRole('form', { name: 'Alerts', exact: true })
    await form.getByRole('checkbox', { name: 'Quiet hours on', exact: true }).check()
    await form.getByLabel('Quiet hours from', { exact: true }).fill('22:15')
    await form.getByLabel('Quiet hours to', { exact: true }).fill('06:45')
    await form.getByRole('textbox', { name: 'Credit line alert thresholds percent', exact: true }).fill('85, 92.5')
    await form.getByRole('button', { name: 'Save alert settings', exact: true }).click()
    await form.getByRole('status').filter({ hasText: 'Alert settings saved' }).waitFor()
    const r = await desk.core.dispatch('alerts.settings.get', undefined, { host: 'test' })
    expect(r.ok && (r.value as AlertSettingsView)).toMatchObject({
      quietHours: { start: '22:15', end: '06:45' },
      ltvThresholdsPct: [85, 92.5],
    })
    await dismissToasts(page)
    await form.scrollIntoViewIfNeeded()
    await shot(page, 'settings-alerts')
    expect(await violations(page, 'form[aria-labelledby="alert-settings-head"]')).toEqual([])
  })
})
