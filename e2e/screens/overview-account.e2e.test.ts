import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { devOwner } from '../../sandbox/scenario/dev-keys'
import { openDesk, type DeskSession } from '../harness'
import { addDecimal, formatDecimal } from '../../renderer/src/shared/utils/decimal'
import { formatAmount } from '../../main/contract/format'
import { approveUntil, choose, firstRun, nav, sandboxAdmin, shot, waitForSubmission } from './helpers'

const from = devOwner(0).address
const shortRe = (a: string) => new RegExp(`${a.slice(0, 6)}…${a.slice(-4)}`, 'i') // the shared shortAddress (format.ts)

describe('overview, account and credit health', () => {
  let desk: DeskSession
  beforeAll(async () => {
    desk = await openDesk()
    await firstRun(desk.page)
  })
  afterAll(async () => {
    await desk?.close()
  })

  const row = (page = desk.page, address = from) =>
    page
      .getByTestId('overview-table')
      .locator('tr')
      .filter({ hasText: shortRe(address) })

  it('shows every account with totals, and updates live when a balance changes elsewhere', async () => {
    const { page } = desk
    await row().waitFor()
    await expect.poll(() => page.getByTestId('overview-total-usd').innerText()).not.toBe('')
    await shot(page, 'overview')
    // A balance reads at its display precision (USDC to the cent); the exact amount is on hover.
    const usdcCell = () =>
      row()
        .locator('td')
        .nth(4)
        .locator('.amount')
        .filter({ hasText: / USDC$/ })
    const exact = async () => {
      const title = await usdcCell().getAttribute('title')
      return (title ?? (await usdcCell().innerText())).replace(/^exactly /, '')
    }
    const before = await exact()

    // Funds arrive from outside the desk (the sandbox faucet): nothing on screen is touched.
    await sandboxAdmin(desk, 'faucet', { target: 'trading', address: from, asset_id: 1, amount: '123450000' })
    // The page never reloaded: the pushed overview carries the exact new balance.
    const usdc = /([0-9,.]+) USDC/.exec(before)
    expect(usdc).not.toBeNull()
    const sum = addDecimal(usdc![1]!.replace(/,/g, ''), '1.2345')
    await expect.poll(exact, { timeout: 30_000 }).toBe(`${formatDecimal(sum)} USDC`)
    expect(await usdcCell().innerText()).toBe(formatAmount(sum, { symbol: 'USDC' }, { display: true }))
  })

  it('opens an account with balances, open orders and fills, and cancels an order', async () => {
    const { page } = desk
    await nav(page, 'Overview')
    await row()
      .getByRole('link', { name: /^Open account / })
      .click()
    const orders = page.getByRole('table', { name: 'Open orders', exact: true })
    await page.getByRole('table', { name: 'Balances', exact: true }).waitFor()
    await orders
      .getByRole('button', { name: /^Cancel order / })
      .first()
      .waitFor()
    await shot(page, 'account')
    const count = await orders.getByRole('button', { name: /^Cancel order / }).count()
    await orders
      .getByRole('button', { name: /^Cancel order / })
      .first()
      .click()
    // Cancels may be signed by an agent without asking; approve if main asks.
    await approveUntil(page, page.getByTestId('submission-state'), 30_000)
    await waitForSubmission(page, /accepted|reconciled/)
    await expect.poll(() => orders.getByRole('button', { name: /^Cancel order / }).count(), { timeout: 30_000 }).toBeLessThan(count)
  })

  it('shows credit health with contributions, marks and a history chart', async () => {
    const { page } = desk
    await nav(page, 'Credit health')
    await choose(page, 'Credit account', new RegExp(devOwner(3).address, 'i'))
    await page.getByRole('table', { name: 'Asset contributions', exact: true }).waitFor()
    expect(await page.getByTestId('credit-warning').innerText()).toMatch(/ok|watch|warning|critical|frozen|unknown/)
    await page.getByRole('img', { name: /Credit history chart/ }).waitFor()
    await shot(page, 'credit-health')
  })
})
