import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { devOwner } from '../../sandbox/scenario/dev-keys'
import { openDesk, type DeskSession } from '../harness'
import { PASSPHRASE, firstRun, waitForSubmission } from './helpers'

describe('keyboard only', () => {
  let desk: DeskSession
  beforeAll(async () => {
    desk = await openDesk()
    await firstRun(desk.page)
  })
  afterAll(async () => {
    await desk?.close()
  })

  it('settles from the keyboard: navigate, pick accounts and asset, type, preview, sign, confirm', async () => {
    const { page } = desk
    const kb = page.keyboard
    await page.getByRole('navigation', { name: 'Main', exact: true }).getByRole('link', { name: 'Settle and repay', exact: true }).focus()
    await kb.press('Enter')
    await page.getByRole('combobox', { name: 'Credit account', exact: true }).focus()
    await kb.type('Credit desk') // native select type-ahead
    await kb.press('Tab')
    await kb.type('Treasury main')
    await kb.press('Tab')
    await kb.type('BTC')
    await kb.press('Tab')
    await kb.type('0.05')
    expect(await page.getByRole('combobox', { name: 'Credit account', exact: true }).inputValue()).toMatch(/^0x/)
    expect(await page.getByRole('combobox', { name: 'Cash account', exact: true }).inputValue()).toMatch(/^0x/)
    await kb.press('Enter') // the form's default action: Preview
    await page.getByRole('region', { name: 'Preview of what will be signed', exact: true }).waitFor()
    await page.getByRole('textbox', { name: 'Amount', exact: true }).focus()
    await kb.press('Enter') // now: Sign and submit
    const dialog = page.getByRole('dialog', { name: 'Confirm signing', exact: true })
    await dialog.waitFor()
    const pass = dialog.getByRole('textbox', { name: 'Confirmation passphrase', exact: true })
    if (await pass.count()) {
      await pass.focus()
      await kb.type(PASSPHRASE)
      await kb.press('Enter')
    } else {
      await dialog.getByRole('button', { name: 'Approve and sign', exact: true }).focus()
      await kb.press('Enter')
    }
    expect(await waitForSubmission(page, /accepted|reconciled/)).toMatch(/accepted|reconciled/)
  })

  it('places an order from the keyboard, then finds it in the journal by its oid', async () => {
    const { page } = desk
    const kb = page.keyboard
    await page.getByRole('navigation', { name: 'Main', exact: true }).getByRole('link', { name: 'Overview', exact: true }).focus()
    await kb.press('Enter')
    await page.getByRole('link', { name: /^Open account Treasury main/ }).focus()
    await kb.press('Enter')
    await page.getByRole('tab', { name: 'Order ticket', exact: true }).focus()
    await kb.press('Enter')
    const market = page.getByRole('combobox', { name: 'Market', exact: true })
    await market.focus()
    // Arrow keys walk a closed native select: stop on market #2.
    for (let i = 0; i < 10 && (await market.inputValue()) !== '2'; i++) await kb.press('ArrowDown')
    expect(await market.inputValue()).toBe('2')
    const bid = page.getByTestId('best-bid')
    await expect.poll(() => bid.innerText(), { timeout: 30_000 }).not.toBe('—')
    const price = String(Math.max(1, Math.floor(Number((await bid.innerText()).split(' ')[0]!.replace(/,/g, '')) * 0.8)))
    await page.getByRole('textbox', { name: 'Limit price', exact: true }).focus()
    await kb.type(price)
    await kb.press('Tab')
    await kb.type('0.5')
    await kb.press('Enter') // the ticket's default action: Place order
    // The owner key signs it: the confirmation is answered from the keyboard too.
    const dialog = page.getByRole('dialog', { name: 'Confirm signing', exact: true })
    await dialog.waitFor()
    const pass = dialog.getByRole('textbox', { name: 'Confirmation passphrase', exact: true })
    if (await pass.count()) {
      await pass.focus()
      await kb.type(PASSPHRASE)
    } else {
      await dialog.getByRole('button', { name: 'Approve and sign', exact: true }).focus()
    }
    await kb.press('Enter')
    const result = page.getByRole('list', { name: 'Order result', exact: true }).filter({ hasText: /open oid \d+/ })
    await result.waitFor({ timeout: 30_000 })
    const oid = (await result.innerText()).match(/oid (\d+)/)![1]!

    await page.getByRole('navigation', { name: 'Main', exact: true }).getByRole('link', { name: 'Journal', exact: true }).focus()
    await kb.press('Enter')
    await page.getByRole('searchbox', { name: 'Search the journal', exact: true }).focus()
    await kb.type(oid)
    await kb.press('Enter') // applies at once (the search also runs as one types)
    await expect
      .poll(() => page.locator('.summary[role="status"]').innerText(), { timeout: 10_000 })
      .toMatch(new RegExp(`^1 entries match "${oid}"`))
  })

  it('focus returns to the control that opened the confirmation, after approving from the keyboard', async () => {
    const { page } = desk
    const kb = page.keyboard
    await page.evaluate((a) => {
      location.hash = `#/overview`
      location.hash = `#/account/${a}`
    }, devOwner(0).address)
    await page.getByRole('tab', { name: 'Activate for', exact: true }).focus()
    await kb.press('Enter')
    const pick = page.getByRole('combobox', { name: 'Account to activate', exact: true })
    await pick.focus()
    // The operator's own account not activated yet (Spare (unfunded)) is offered first.
    await expect
      .poll(async () => (await pick.locator('option:checked').innerText()).trim(), { timeout: 30_000 })
      .toMatch(/Spare \(unfunded\)/)
    const sign = page.getByRole('button', { name: 'Sign and submit activation', exact: true })
    await sign.focus()
    await kb.press('Enter')
    const dialog = page.getByRole('dialog', { name: 'Confirm signing', exact: true })
    await dialog.waitFor()
    expect(await dialog.evaluate((d) => d.contains(document.activeElement))).toBe(true)
    await kb.press('Escape') // declined: nothing signed, and focus is back where it was
    await dialog.waitFor({ state: 'hidden' })
    // (once the form re-enables it: the declined call settles first)
    await expect.poll(() => sign.evaluate((b) => b === document.activeElement), { timeout: 3000 }).toBe(true)
    await sign.focus()
    await kb.press('Enter')
    await dialog.waitFor()
    const pass = dialog.getByRole('textbox', { name: 'Confirmation passphrase', exact: true })
    if (await pass.count()) {
      await pass.focus()
      await kb.type(PASSPHRASE)
    } else {
      await dialog.getByRole('button', { name: 'Approve and sign', exact: true }).focus()
    }
    await kb.press('Enter')
    await dialog.waitFor({ state: 'hidden' })
    await expect.poll(() => sign.evaluate((b) => b === document.activeElement), { timeout: 3000 }).toBe(true)
    expect(await waitForSubmission(page, /accepted|reconciled/)).toMatch(/accepted|reconciled/)
  })
})
