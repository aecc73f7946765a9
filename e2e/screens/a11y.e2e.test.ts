/**
 * axe-core in real Chromium on every screen and dialog, walked the way an operator does:
 * first run, add-accounts step, overview, account, credit, agents, settle preview and its
 * confirmation dialog, earn, journal, settings, notifications panel, unlock. Each must have
 * no critical or serious violation (here colour contrast and scrollable regions are checked
 * too, which the happy-dom component tests cannot). Dialogs give focus back to their opener.
 */
import { readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import type { Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { devOwner } from '../../sandbox/scenario/dev-keys'
import { openDesk, type DeskSession } from '../harness'
import { openJournal } from '../../main/core/journal'
import { PASSPHRASE, choose, nav, sandboxAdmin } from './helpers'

const axePath = createRequire(import.meta.url).resolve('axe-core')

/** Critical and serious violations on the page now, as "rule (impact): target — summary". */
async function violations(page: Page): Promise<string[]> {
  if (!(await page.evaluate(() => 'axe' in window))) {
    // The page's CSP (script-src 'self') refuses an injected <script>; evaluate is not subject to it.
    await page.addScriptTag({ path: axePath }).catch(() => undefined)
    if (!(await page.evaluate(() => 'axe' in window))) await page.evaluate(readFileSync(axePath, 'utf8'))
  }
  await page.waitForTimeout(300) // let transitions settle
  return page.evaluate(async () => {
    const axe = (window as unknown as { axe: typeof import('axe-core') }).axe
    const r = await axe.run(document, { resultTypes: ['violations'] })
    return r.violations
      .filter((v) => v.impact === 'critical' || v.impact === 'serious')
      .flatMap((v) => v.nodes.map((n) => `${v.id} (${v.impact}): ${n.target.join(' ')} — ${n.failureSummary ?? ''}`))
  })
}

const credit = new RegExp(devOwner(3).address, 'i')
const cash = new RegExp(devOwner(0).address, 'i')

describe('accessibility of every screen and dialog (axe-core, Chromium)', () => {
  let desk: DeskSession
  beforeAll(async () => {
    desk = await openDesk()
  })
  afterAll(async () => {
    await desk?.close()
  })

  it('first run and the add-accounts step', async () => {
    const { page } = desk
    await page.getByRole('textbox', { name: 'New vault passphrase', exact: true }).waitFor()
    expect(await violations(page)).toEqual([])
    await page.getByRole('textbox', { name: 'New vault passphrase', exact: true }).fill(PASSPHRASE)
    await page.getByRole('textbox', { name: 'Repeat vault passphrase', exact: true }).fill(PASSPHRASE)
    await page.getByRole('button', { name: 'Create vault', exact: true }).click()
    await page.getByRole('region', { name: 'Add accounts', exact: true }).waitFor()
    expect(await violations(page)).toEqual([])
    await page.getByRole('button', { name: 'Add the sandbox demo accounts', exact: true }).click()
    await page.getByText(/sandbox accounts added/).waitFor()
    await page.getByRole('button', { name: 'Continue to overview', exact: true }).click()
  })

  it('overview and account', async () => {
    const { page } = desk
    await page
      .getByRole('link', { name: /^Open account / })
      .first()
      .waitFor()
    expect(await violations(page)).toEqual([])
    await page
      .getByRole('link', { name: /^Open account / })
      .first()
      .click()
    await page.getByRole('button', { name: 'Refresh account', exact: true }).waitFor()
    expect(await violations(page)).toEqual([])
  })

  it('credit health and agents', async () => {
    const { page } = desk
    await nav(page, 'Credit health')
    await choose(page, 'Credit account', credit).catch(() => undefined)
    await page
      .getByTestId('credit-warning')
      .waitFor({ timeout: 30_000 })
      .catch(() => undefined)
    expect(await violations(page)).toEqual([])
    await nav(page, 'Agents')
    await page.getByRole('button', { name: /^(Rotate agent|Approve a new agent) in slot 0$/ }).waitFor()
    expect(await violations(page)).toEqual([])
  })

  it('settle preview, the confirmation dialog, and focus back to the control that opened it', async () => {
    const { page } = desk
    await nav(page, 'Settle and repay')
    await page.getByRole('button', { name: 'Settle mode', exact: true }).click()
    await choose(page, 'Credit account', credit)
    await choose(page, 'Cash account', cash)
    await choose(page, 'Asset', /^BTC$/)
    await page.getByRole('textbox', { name: 'Amount', exact: true }).fill('0.1')
    await page.getByRole('button', { name: 'Preview', exact: true }).click()
    await page.getByRole('region', { name: 'Preview of what will be signed', exact: true }).waitFor()
    expect(await violations(page)).toEqual([])
    const submit = page.getByRole('button', { name: 'Sign and submit settle', exact: true })
    await submit.focus()
    await page.keyboard.press('Enter')
    const dialog = page.getByRole('dialog', { name: 'Confirm signing', exact: true })
    await dialog.waitFor()
    expect(await dialog.evaluate((d) => d.contains(document.activeElement))).toBe(true)
    expect(await violations(page)).toEqual([])
    await page.keyboard.press('Escape') // declines: nothing is signed
    await dialog.waitFor({ state: 'hidden' })
    expect(await submit.evaluate((b) => b === document.activeElement)).toBe(true)
  })

  async function openAccount(page: Page, address: string, tab: 'Order ticket' | 'Transfer' | 'Withdraw' | 'Activate for'): Promise<void> {
    await page.evaluate((a) => {
      location.hash = `#/overview`
      location.hash = `#/account/${a}`
    }, address)
    await page.getByRole('tab', { name: tab, exact: true }).click()
  }

  it('the account transfer with its preview, the activate tab, and the order ticket with its best bid and offer', async () => {
    const { page } = desk
    await openAccount(page, devOwner(0).address, 'Transfer')
    await choose(page, 'Transfer to', devOwner(2).address.toLowerCase().slice(0, 10))
    await choose(page, 'Transfer asset', /^USDC$/)
    await page.getByRole('textbox', { name: 'Transfer amount', exact: true }).fill('1')
    await page.getByRole('button', { name: 'Preview transfer', exact: true }).click()
    await page.getByRole('region', { name: 'Preview of what will be signed', exact: true }).waitFor()
    expect(await violations(page)).toEqual([])
    await page.getByRole('tab', { name: 'Activate for', exact: true }).click()
    await page.getByRole('combobox', { name: 'Account to activate', exact: true }).waitFor()
    expect(await violations(page)).toEqual([])
    await page.getByRole('tab', { name: 'Order ticket', exact: true }).click()
    await choose(page, 'Market', /^ETH\/USDC$/)
    await page.getByRole('textbox', { name: 'Limit price', exact: true }).fill('100')
    await page.getByRole('textbox', { name: 'Quantity', exact: true }).fill('0.5')
    await expect.poll(() => page.getByTestId('best-bid').innerText(), { timeout: 30_000 }).not.toBe('—')
    expect(await violations(page)).toEqual([])
  })

  it('repay mode, the confirmation with passphrase re-entry and the exact action shown, a rejected settle notice and its toast', async () => {
    const { page } = desk
    // Every owner-key signature asks for the passphrase again.
    expect((await desk.core.dispatch('settings.update', { passphraseWindowMinutes: 0 }, { host: 'test' })).ok).toBe(true)
    await nav(page, 'Settle and repay')
    await page.getByRole('button', { name: 'Repay mode', exact: true }).click()
    await page.getByRole('combobox', { name: 'Cash account', exact: true }).waitFor()
    expect(await violations(page)).toEqual([])
    await page.getByRole('button', { name: 'Settle mode', exact: true }).click()
    await choose(page, 'Credit account', credit)
    await choose(page, 'Cash account', cash)
    await choose(page, 'Asset', /^BTC$/)
    await page.getByRole('textbox', { name: 'Amount', exact: true }).fill('0.01')
    await page.getByRole('button', { name: 'Preview', exact: true }).click()
    await page.getByRole('region', { name: 'Preview of what will be signed', exact: true }).waitFor()
    // The service will refuse the next write at execution (envelope failure): a rejected settle.
    await sandboxAdmin(desk, 'faults', { trading: { envelopeFailure: { count: 1, code: 'BadNonce' } } })
    await page.getByRole('button', { name: 'Sign and submit settle', exact: true }).click()
    const dialog = page.getByRole('dialog', { name: 'Confirm signing', exact: true })
    await dialog.waitFor()
    await dialog.getByRole('textbox', { name: 'Confirmation passphrase', exact: true }).waitFor()
    await dialog.getByRole('button', { name: 'Show exact action', exact: true }).click()
    await dialog.getByLabel('Exact action to be signed', { exact: true }).waitFor()
    await dialog.getByTestId('confirm-signer').waitFor()
    expect(await violations(page)).toEqual([])
    await dialog.getByRole('textbox', { name: 'Confirmation passphrase', exact: true }).fill(PASSPHRASE)
    await dialog.getByRole('button', { name: 'Approve and sign', exact: true }).click()
    await page
      .getByTestId('error-code')
      .filter({ hasText: /BadNonce|TradeRejected/ })
      .waitFor({ timeout: 30_000 })
    await page
      .getByRole('button', { name: /^Dismiss Rejected: settle/ })
      .first()
      .waitFor({ timeout: 15_000 })
    expect(await violations(page)).toEqual([])
  })

  it('the journal with an unresolved write and its acknowledge form', async () => {
    const { page } = desk
    // An unresolved write as the reconciler leaves it (evidence that could not settle it), under a
    // signer of its own so the operator's nonce sequences are untouched.
    const j = openJournal(desk.dataDir)
    const owner = devOwner(0).address.toLowerCase()
    const s = j.record({
      channel: 'trade',
      key: `0x${'ab'.repeat(16)}`,
      network: 'sandbox',
      account: owner,
      signer: '0x000000000000000000000000000000000000a11e',
      actionType: 'transfer',
      summary: 'transfer 1 USDC (a11y fixture)',
      nonce: '1',
      body: '{}',
    })
    j.update(s.id, { state: 'sent' })
    j.update(s.id, {
      state: 'unresolved',
      evidence: JSON.stringify({ txStatusByCloid: { found: false } }),
      advice: 'Check the balances of both accounts on the exchange',
    })
    await j.close()
    await nav(page, 'Journal')
    const section = page.getByRole('region', { name: 'Unresolved writes needing your check', exact: true })
    await section.waitFor({ timeout: 15_000 })
    await section.getByRole('button', { name: 'Acknowledge unresolved outcome', exact: true }).first().click()
    await section.getByRole('textbox', { name: 'Acknowledgement note', exact: true }).first().waitFor()
    expect(await violations(page)).toEqual([])
  })

  it('the stream-status popover', async () => {
    const { page } = desk
    const opener = page.getByRole('button', { name: /live stream (connected|disconnected).*details$/ })
    await opener.click()
    await page
      .getByText(/the service counts/i)
      .first()
      .waitFor()
    expect(await violations(page)).toEqual([])
    await opener.click()
  })

  it('earn, journal and settings', async () => {
    const { page } = desk
    await nav(page, 'Earn')
    await choose(page, 'Earn account', new RegExp(devOwner(2).address, 'i'))
    await page.getByRole('table', { name: 'Earn balances', exact: true }).waitFor()
    expect(await violations(page)).toEqual([])
    await nav(page, 'Journal')
    await page.getByRole('button', { name: 'Export CSV', exact: true }).waitFor()
    expect(await violations(page)).toEqual([])
    await nav(page, 'Settings')
    await page.getByRole('table', { name: 'Networks', exact: true }).waitFor()
    expect(await violations(page)).toEqual([])
  })

  it('the notifications panel, and unlock', async () => {
    const { page } = desk
    const opener = page.getByRole('button', { name: /^Notifications, \d+ unread$/ })
    await opener.click()
    const panel = page.getByRole('dialog', { name: 'Notifications', exact: true })
    await panel.waitFor()
    expect(await violations(page)).toEqual([])
    await page.keyboard.press('Escape')
    await panel.waitFor({ state: 'hidden' })
    expect(await opener.evaluate((b) => b === document.activeElement)).toBe(true)
    await page.getByRole('button', { name: 'Lock the vault', exact: true }).click()
    await page.getByRole('textbox', { name: 'Vault passphrase', exact: true }).waitFor()
    expect(await violations(page)).toEqual([])
  })
})
