import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { devOwner } from '../../sandbox/scenario/dev-keys'
import { openDesk, type DeskSession } from '../harness'
import { approve, choose, firstRun, nav, shot, waitForSubmission } from './helpers'

// Scenario: owner 3 is a credit account with a long of asset 3 and a short of asset 1;
// owner 0 is a funded balance-mode account.
const credit = new RegExp(devOwner(3).address, 'i')
const cash = new RegExp(devOwner(0).address, 'i')

describe('settle and repay', () => {
  let desk: DeskSession
  beforeAll(async () => {
    desk = await openDesk()
    await firstRun(desk.page)
  })
  afterAll(async () => {
    await desk?.close()
  })

  async function fill(mode: 'Settle' | 'Repay', asset: RegExp, amount: string) {
    const { page } = desk
    await nav(page, 'Settle and repay')
    await page.getByRole('button', { name: `${mode} mode`, exact: true }).click()
    await choose(page, 'Credit account', credit)
    await choose(page, 'Cash account', cash)
    await choose(page, 'Asset', asset)
    await page.getByRole('textbox', { name: 'Amount', exact: true }).fill(amount)
  }

  it('refuses an amount finer than the asset precision while typing', async () => {
    const { page } = desk
    await fill('Settle', /^BTC$/, '0.123456789012')
    await page.getByRole('textbox', { name: 'Amount', exact: true }).press('End')
    expect(await page.getByRole('textbox', { name: 'Amount', exact: true }).getAttribute('aria-invalid')).toBe('true')
    await expect.poll(() => page.getByRole('alert').first().innerText()).toMatch(/at most \d+ decimals/)
    expect(await page.getByRole('button', { name: 'Preview', exact: true }).isDisabled()).toBe(true)
  })

  it('settles: previews exactly what will be signed, confirms, ends accepted with both balances updated', async () => {
    const { page } = desk
    await fill('Settle', /^BTC$/, '0.1')
    await page.getByRole('button', { name: 'Preview', exact: true }).click()
    const preview = page.getByRole('region', { name: 'Preview of what will be signed', exact: true })
    await preview.waitFor()
    const effects = await preview.getByRole('table', { name: 'Predicted balances', exact: true }).innerText()
    expect(effects.split('\n').length).toBeGreaterThanOrEqual(3)
    await shot(page, 'settle-preview')
    await page.getByRole('button', { name: 'Sign and submit settle', exact: true }).click()
    const summary = await approve(page)
    expect(summary).toMatch(/0\.1/)
    expect(await waitForSubmission(page, /accepted|reconciled/)).toMatch(/accepted|reconciled/)
    const now = page.getByRole('region', { name: 'Balances now', exact: true })
    await now.waitFor()
    // The predicted "after" figures are what the accounts now hold.
    const after = (
      await preview.getByRole('table', { name: 'Predicted balances', exact: true }).locator('tbody tr td:nth-child(5)').allInnerTexts()
    ).map((s) => s.trim())
    const nowText = await now.innerText()
    for (const a of after) expect(nowText).toContain(a)
    await shot(page, 'settle-accepted')
  })

  it('repays part of the short from the cash account and ends accepted', async () => {
    const { page } = desk
    await fill('Repay', /^USDC$/, '100')
    await page.getByRole('button', { name: 'Preview', exact: true }).click()
    await page.getByRole('region', { name: 'Preview of what will be signed', exact: true }).waitFor()
    await page.getByRole('button', { name: 'Sign and submit repay', exact: true }).click()
    await approve(page)
    expect(await waitForSubmission(page, /accepted|reconciled/)).toMatch(/accepted|reconciled/)
    await page.getByRole('region', { name: 'Balances now', exact: true }).waitFor()
  })

  it('shows a rejected settle with its code and what to do', async () => {
    const { page } = desk
    // Far more than the long: the service (or main's pre-check) refuses it as InvalidSettle.
    await fill('Settle', /^BTC$/, '500')
    await page.getByRole('button', { name: 'Preview', exact: true }).click()
    const sign = page.getByRole('button', { name: 'Sign and submit settle', exact: true })
    if (await sign.isVisible().catch(() => false)) {
      await sign.click()
      await approve(page).catch(() => {})
    }
    await page
      .getByTestId('error-code')
      .or(page.getByTestId('submission-state').filter({ hasText: 'rejected' }))
      .first()
      .waitFor()
    const text = await page.locator('main').innerText()
    expect(text).toMatch(/InvalidSettle|InsufficientSpotCredit|invalidsettle/)
    await shot(page, 'settle-rejected')
  })
})
