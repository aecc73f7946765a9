import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Page } from 'playwright-core'
import { devOwner } from '../../sandbox/scenario/dev-keys'
import { openDesk, type DeskSession } from '../harness'
import { approveUntil, choose, firstRun, shot } from './helpers'

/**
 * The operator's order ticket and confirmations against the live sandbox: best bid and offer
 * with their age, tick, minimums and the order value as typed; the key that signs named in the
 * ticket and in every confirmation; a declined signature is neutral, not a failure; activation
 * picks one of the operator's own accounts not yet activated and shows the protocol fee.
 */
const owner = (i: number) => devOwner(i).address
const short = (a: string) => `${a.slice(0, 6)}…${a.slice(-4)}`

describe('order ticket, signer in confirmations, declines, activation', () => {
  let desk: DeskSession
  beforeAll(async () => {
    desk = await openDesk()
    await firstRun(desk.page)
  })
  afterAll(async () => {
    await desk?.close()
  })

  async function openAccount(page: Page, address: string, tab: 'Order ticket' | 'Transfer' | 'Withdraw' | 'Activate for'): Promise<void> {
    await page.evaluate((a) => {
      location.hash = `#/overview`
      location.hash = `#/account/${a}`
    }, address)
    await page.getByRole('tab', { name: tab, exact: true }).click()
  }

  it('the ticket shows live best bid and offer with its age, tick, minimums, the order value as typed and the signing key; then places the order', async () => {
    const { page } = desk
    // Owner 0's scenario agents are not in this vault: its orders are signed by its owner key.
    await openAccount(page, owner(0), 'Order ticket')
    await choose(page, 'Market', /^ETH\/USDC$/)
    const facts = page.getByRole('region', { name: 'Order preview', exact: true })
    await expect
      .poll(() => facts.getByTestId('best-bid').innerText(), { timeout: 30_000 })
      .toMatch(/^[0-9,]+(\.[0-9]+)? \S+ × [0-9.,]+ \S+$/)
    expect(await facts.getByTestId('best-ask').innerText()).toMatch(/^[0-9,]+(\.[0-9]+)? \S+ × /)
    expect(await facts.getByTestId('book-age').innerText()).toMatch(/s ago/)
    expect(await facts.getByTestId('tick-size').innerText()).toMatch(/^0\.0*1 \S+$/)
    expect(await facts.getByTestId('min-size').innerText()).toMatch(/^0\.0*1 \S+$/)
    expect(await facts.getByTestId('min-notional').innerText()).toMatch(/^[0-9,.]+ \S+$|none listed/)
    expect(await facts.getByTestId('data-age').innerText()).toMatch(/refused past 30s/)
    const signer = facts.getByTestId('order-signer')
    await expect.poll(() => signer.innerText()).toMatch(/^(API key slot \d of Treasury main|Treasury main \(owner key\))/)
    expect(await signer.innerText()).toContain(short(owner(0)))
    // A bid well under the best bid rests; value = price x quantity, exact and grouped.
    const bid = (await facts.getByTestId('best-bid').innerText()).split(' ')[0]!.replace(/,/g, '')
    const price = String(Math.max(1, Math.floor(Number(bid) * 0.8)))
    await page.getByRole('textbox', { name: 'Limit price', exact: true }).fill(price)
    await page.getByRole('textbox', { name: 'Quantity', exact: true }).fill('0.5')
    await expect
      .poll(() => facts.getByTestId('order-value').innerText())
      .toMatch(new RegExp(`^${Number(price) / 2 >= 1000 ? '[0-9]{1,3}(,[0-9]{3})+' : '[0-9]+'}(\\.5)? \\S+$`))
    await shot(page, 'order-ticket')
    await page.getByRole('button', { name: 'Place order', exact: true }).click()
    // The owner key signs: the order asks first, and the dialog names it and the key.
    const dialog = page.getByRole('dialog', { name: 'Confirm signing', exact: true })
    await dialog.waitFor()
    expect(await dialog.innerText()).toMatch(/Buy 0\.5 ETH at [0-9,.]+ USDC on ETH\/USDC/)
    expect(await dialog.getByTestId('confirm-signer').innerText()).toContain('owner key')
    await approveUntil(page, page.getByRole('list', { name: 'Order result', exact: true }).filter({ hasText: /open oid \d+/ }), 30_000)
    // The write's outcome names the key that signed it, as the ticket said it would.
    expect(await page.getByTestId('outcome-signer').last().innerText()).toMatch(/Treasury main \(owner key\)|API key of Treasury main/)
  })

  it('every confirmation names the signing key ("Signed by": name and short address, full address on demand)', async () => {
    const { page } = desk
    await openAccount(page, owner(0), 'Transfer')
    await choose(page, 'Transfer to', owner(2).toLowerCase().slice(0, 10))
    await choose(page, 'Transfer asset', /^USDC$/)
    await page.getByRole('textbox', { name: 'Transfer amount', exact: true }).fill('1')
    await page.getByRole('button', { name: 'Preview transfer', exact: true }).click()
    await page.getByRole('region', { name: 'Preview of what will be signed', exact: true }).waitFor()
    await page.getByRole('button', { name: 'Sign and submit transfer', exact: true }).click()
    const dialog = page.getByRole('dialog', { name: 'Confirm signing', exact: true })
    await dialog.waitFor()
    const row = dialog.getByTestId('confirm-signer')
    expect(await row.innerText()).toContain('Treasury main')
    expect(await row.innerText()).toContain(short(owner(0)))
    expect(await row.innerText()).toContain('owner key')
    expect((await dialog.innerText()).toLowerCase()).not.toContain(owner(0).toLowerCase())
    await row.getByRole('button', { name: /show the full address of Treasury main$/ }).click()
    expect((await row.innerText()).toLowerCase()).toContain(owner(0).toLowerCase())
    expect(await row.getByRole('button', { name: 'Copy the address of Treasury main', exact: true }).count()).toBe(1)
    await shot(page, 'confirm-dialog')

    // C: declining is the operator's choice: a neutral notice, never "… failed".
    await dialog.getByRole('button', { name: 'Decline and do not sign', exact: true }).click()
    await dialog.waitFor({ state: 'hidden' })
    const notice = page.getByTestId('declined-notice')
    await notice.waitFor()
    expect(await notice.innerText()).toContain('Declined — nothing was signed')
    expect(await page.locator('main').innerText()).not.toMatch(/Transfer failed/)
  })

  it("activation picks one of the operator's own accounts not yet activated, shows the protocol fee formatted, and names the signer", async () => {
    const { page } = desk
    await openAccount(page, owner(0), 'Activate for')
    const pick = page.getByRole('combobox', { name: 'Account to activate', exact: true })
    // Owner 5 ("Spare (unfunded)") has no account on the service yet.
    await expect
      .poll(async () => (await pick.locator('option').allInnerTexts()).join('|'), { timeout: 30_000 })
      .toMatch(/Spare \(unfunded\).*not activated/)
    await choose(page, 'Account to activate', /Spare \(unfunded\)/)
    expect(await page.getByTestId('activation-fee').innerText()).toMatch(/Activation fee: 1 \S+, fixed by the protocol/)
    expect(await page.locator('form[aria-label="Activate account"]').innerText()).not.toContain('1.0')
    // Another address: a field with a visible label.
    await choose(page, 'Account to activate', /another address/)
    await page.getByText('Address to activate', { exact: true }).waitFor()
    await choose(page, 'Account to activate', /Spare \(unfunded\)/)
    await page.getByRole('button', { name: 'Sign and submit activation', exact: true }).click()
    const dialog = page.getByRole('dialog', { name: 'Confirm signing', exact: true })
    await dialog.waitFor()
    expect(await dialog.getByTestId('confirm-signer').innerText()).toContain('Treasury main')
    await approveUntil(page, page.getByTestId('submission-outcome').filter({ hasText: 'success' }), 60_000)
    expect((await desk.core.dispatch('portfolio.overview', undefined, { host: 'test' })).ok).toBe(true)
  })
})
