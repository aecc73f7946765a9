import { afterAll, beforeAll, describe, expect, it } from 'vitest'
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
})
