import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Page } from 'playwright-core'
import { devOwner } from '../../sandbox/scenario/dev-keys'
import { openDesk, type DeskSession } from '../harness'
import { addDecimal, compareDecimal, subDecimal } from '../../renderer/src/shared/utils/decimal'
import { firstRun, PASSPHRASE, sandboxAdmin, openTab } from './helpers'
import { shortAddress } from '../../main/contract/format'

/**
 * A live console: each kind of write is made (through the core, as another window or `desk`
 * would), and every screen it affects, open side by side in its own tab, shows the final state
 * without any click. No Refresh button is pressed anywhere in this file.
 */
const owner = (i: number) => devOwner(i).address.toLowerCase()
const shortRe = (a: string) => new RegExp(shortAddress(a), 'i')

describe('live screens follow every write without a click', () => {
  let desk: DeskSession
  let stopConfirm: () => void = () => {}
  const tabs: Page[] = []

  beforeAll(async () => {
    desk = await openDesk()
    await firstRun(desk.page)
    stopConfirm = desk.desk.autoConfirm(PASSPHRASE)
  }, 60_000)
  afterAll(async () => {
    stopConfirm()
    for (const t of tabs) await t.close().catch(() => {})
    await desk?.close()
  })

  async function tab(route: string): Promise<Page> {
    const p = await openTab(desk, route)
    tabs.push(p)
    return p
  }

  async function write(
    channel: string,
    args: unknown,
  ): Promise<{ submission?: { state: string; cloid: string }; leaves?: { oid: string | null }[]; operationId?: string }> {
    const r = await desk.core.dispatch(channel, args, { host: 'test' })
    if (!r.ok) throw new Error(`${channel}: ${r.error.code} ${r.error.message}`)
    return r.value as never
  }

  /** The number in a balances-table cell ("1,234.5 USDC" -> "1234.5"). */
  const num = (text: string) => (/-?[0-9][0-9,]*(\.[0-9]+)?/.exec(text)?.[0] ?? '').replace(/,/g, '')
  const balanceCell = (p: Page, symbol: string, col = 1) =>
    p
      .getByRole('table', { name: 'Balances', exact: true })
      .locator('tbody tr')
      .filter({ has: p.locator('td:first-child', { hasText: new RegExp(`^${symbol}$`) }) })
      .locator('td')
      .nth(col)
  const overviewRow = (p: Page, a: string) =>
    p
      .getByTestId('overview-table')
      .locator('tr')
      .filter({ hasText: shortRe(a) })
  const journalHas = (p: Page, re: RegExp) =>
    p
      .getByRole('table', { name: 'Submissions' })
      .or(p.locator('[aria-label="Submissions"]'))
      .first()
      .innerText()
      .then((t) => re.test(t))

  it('transfer: sender page, recipient page, overview and journal', async () => {
    const [sender, recipient, overview, journal] = [
      await tab(`/account/${owner(0)}`),
      await tab(`/account/${owner(2)}`),
      await tab('/overview'),
      await tab('/journal'),
    ]
    await balanceCell(sender, 'USDC').waitFor()
    // The recipient (Payments) holds no USDC yet: its row appears with the transfer.
    await recipient.getByRole('table', { name: 'Balances', exact: true }).locator('tbody tr').first().waitFor()
    await overviewRow(overview, owner(2)).waitFor()
    const usdc = async (p: Page) => ((await balanceCell(p, 'USDC').count()) ? num(await balanceCell(p, 'USDC').innerText()) : '0')
    const before = { s: await usdc(sender), r: await usdc(recipient) }
    const out = await write('transfer.submit', { from: owner(0), to: owner(2), assetId: 1, amount: '7.25' })
    expect(out.submission!.state).toBe('accepted')
    await expect
      .poll(async () => num(await balanceCell(sender, 'USDC').innerText()), { timeout: 15_000 })
      .toBe(subDecimal(before.s, '7.25'))
    await expect.poll(() => usdc(recipient), { timeout: 15_000 }).toBe(addDecimal(before.r, '7.25'))
    await expect
      .poll(
        async () => num(/([0-9][0-9,.]*) USDC/.exec(await overviewRow(overview, owner(2)).locator('td').nth(4).innerText())?.[1] ?? ''),
        { timeout: 15_000 },
      )
      .toBe(addDecimal(before.r, '7.25'))
    await expect
      .poll(
        () =>
          journalHas(
            journal,
            new RegExp(`${out.submission!.cloid.slice(0, 10)}[\\s\\S]*?accepted|accepted[\\s\\S]*?${out.submission!.cloid.slice(0, 10)}`),
          ),
        { timeout: 15_000 },
      )
      .toBe(true)
  })

  it('settle: the credit account page (positions) and the cash account page', async () => {
    const [credit, cash] = [await tab(`/account/${owner(3)}`), await tab(`/account/${owner(0)}`)]
    const btcPos = credit
      .getByRole('table', { name: 'Credit positions', exact: true })
      .locator('tbody tr')
      .filter({ hasText: /^BTC/ })
      .locator('td')
      .nth(1)
    await btcPos.waitFor()
    await balanceCell(cash, 'BTC').waitFor()
    const before = { pos: num(await btcPos.innerText()), cash: num(await balanceCell(cash, 'BTC').innerText()) }
    await write('settle.submit', { creditAccount: owner(3), cashAccount: owner(0), assetId: 3, amount: '0.05' })
    await expect.poll(async () => num(await btcPos.innerText()), { timeout: 15_000 }).toBe(subDecimal(before.pos, '0.05'))
    await expect
      .poll(async () => num(await balanceCell(cash, 'BTC').innerText()), { timeout: 15_000 })
      .toBe(addDecimal(before.cash, '0.05'))
  })

  it('orders: a placed order appears on the account page with its locked funds; a cancel removes it', async () => {
    const page = await tab(`/account/${owner(1)}`)
    const orders = page.getByRole('table', { name: 'Open orders', exact: true })
    await orders.waitFor()
    await balanceCell(page, 'USDC').waitFor()
    const lockedBefore = num(await balanceCell(page, 'USDC', 2).innerText())
    const placed = await write('orders.place', {
      account: owner(1),
      marketId: '2',
      side: 'bid',
      orderType: 'limit',
      tif: 'gtc',
      price: '3000',
      quantity: '0.01',
    })
    const oid = placed.leaves![0]!.oid!
    const cancelBtn = orders.getByRole('button', { name: `Cancel order ${oid}`, exact: true })
    await cancelBtn.waitFor({ timeout: 15_000 })
    await expect
      .poll(async () => compareDecimal(num(await balanceCell(page, 'USDC', 2).innerText()), lockedBefore), { timeout: 15_000 })
      .toBe(1)
    await write('orders.cancel', { account: owner(1), marketId: '2', oid })
    await expect.poll(() => cancelBtn.count(), { timeout: 15_000 }).toBe(0)
    await expect.poll(async () => num(await balanceCell(page, 'USDC', 2).innerText()), { timeout: 15_000 }).toBe(lockedBefore)
  })

  it('earn: a created withdrawal appears in the queue; a claim moves to claimed on its own (no "authorizing" left behind)', async () => {
    const page = await tab(`/earn/${owner(2)}`)
    const queue = page.getByRole('table', { name: 'Withdrawal queue', exact: true })
    await page.getByRole('table', { name: 'Earn balances', exact: true }).waitFor()
    const w = await write('earn.create', { account: owner(2), assetId: 1, amount: '4', type: 'scheduled' })
    const row = queue.locator('tbody tr').filter({ has: page.locator(`td[title="operation ${w.operationId}"]`) })
    await row.waitFor({ timeout: 15_000 })
    expect(await row.innerText()).toMatch(/queued/)
    await sandboxAdmin(desk, 'earn/claimable', { operation_id: w.operationId })
    await write('earn.claim', { account: owner(2), operationId: w.operationId })
    await expect.poll(() => row.innerText(), { timeout: 45_000, interval: 500 }).toMatch(/claimed/)
  }, 60_000)
})
