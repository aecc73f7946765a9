import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Page } from 'playwright-core'
import type { WriteOutcome } from '../../main/contract/types'
import { devOwner } from '../../sandbox/scenario/dev-keys'
import { openDesk, type DeskSession } from '../harness'
import { PASSPHRASE, choose, firstRun, nav } from './helpers'

/**
 * The journal answers in main: a placed order is found by its oid (stored from the order's
 * answer), its cloid and its tx hash; the type filter is a choice of the journal's action types;
 * the from/to pickers bound the creation time.
 */
describe('journal search and filters', () => {
  let desk: DeskSession
  let placed: WriteOutcome
  beforeAll(async () => {
    desk = await openDesk()
    await firstRun(desk.page)
    const dispatch = async (channel: string, args?: unknown) => desk.core.dispatch(channel, args, { host: 'test' })
    const owner = devOwner(0).address
    // A resting bid (well under the book), placed as the ticket does.
    const p = (await dispatch('orders.preview', { account: owner, marketId: '2', side: 'bid' })) as {
      ok: boolean
      value?: { book: { bid: { price: string } | null } }
    }
    expect(p.ok).toBe(true)
    const bid = Number(p.value!.book.bid?.price ?? '3000')
    // The owner key signs it: the order asks first, answered here as the operator would.
    const stop = desk.desk.autoConfirm(PASSPHRASE)
    const r = await dispatch('orders.place', {
      account: owner,
      marketId: '2',
      side: 'bid',
      orderType: 'limit',
      tif: 'gtc',
      price: String(Math.floor(bid * 0.8)),
      quantity: '0.5',
    })
    stop()
    if (!r.ok) throw new Error(`orders.place: ${r.error.code} ${r.error.message}`)
    placed = r.value as WriteOutcome
    // A second kind of write for the type filter.
    const c = await dispatch('orders.cancelAll', { account: owner, marketId: '1' })
    expect(c.ok).toBe(true)
  })
  afterAll(async () => {
    await desk?.close()
  })

  const status = (page: Page) => page.locator('.summary[role="status"]')
  const table = (page: Page) => page.locator('[aria-label="Submissions"]')
  async function search(page: Page, q: string): Promise<void> {
    await page.getByRole('searchbox', { name: 'Search the journal', exact: true }).fill(q)
    await expect.poll(() => status(page).innerText(), { timeout: 10_000 }).toContain(`match "${q}"`)
  }

  it('finds the placed order by its oid, its cloid and its tx hash', async () => {
    const { page } = desk
    const oid = placed.leaves.find((l) => l.oid)?.oid
    expect(oid).toMatch(/^[0-9]+$/)
    await nav(page, 'Journal')
    await status(page)
      .filter({ hasText: /\d+ entries/ })
      .waitFor()
    await search(page, oid!)
    expect(await status(page).innerText()).toMatch(/^1 entries match/)
    await expect.poll(() => table(page).innerText()).toContain(placed.submission.cloid)
    expect(await table(page).innerText()).toContain(oid!)
    await search(page, placed.submission.cloid.slice(0, 14))
    expect(await status(page).innerText()).toMatch(/^1 entries match/)
    expect(placed.submission.txHash).toMatch(/^0x[0-9a-f]+$/)
    await search(page, placed.submission.txHash!.toUpperCase().replace('0X', '0x'))
    expect(await status(page).innerText()).toMatch(/^1 entries match/)
    await search(page, 'no-such-write')
    expect(await status(page).innerText()).toMatch(/^0 entries match/)
    await page.getByRole('searchbox', { name: 'Search the journal', exact: true }).fill('')
  })

  it('filters by action type (a select of the journal’s types) and by a from/to range', async () => {
    const { page } = desk
    await choose(page, 'Action type', 'cancelAll')
    await page.getByRole('button', { name: 'Apply filters', exact: true }).click()
    await expect.poll(() => status(page).innerText()).toMatch(/^1 entries/)
    expect(await table(page).innerText()).not.toContain(placed.submission.cloid)
    await choose(page, 'Action type', 'any type')
    const pad = (n: number) => String(n).padStart(2, '0')
    const local = (ms: number) => {
      const d = new Date(ms)
      return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}T${pad(d.getHours())}:${pad(d.getMinutes())}`
    }
    // From tomorrow: nothing; from an hour ago to tomorrow: both writes.
    await page
      .getByRole('textbox', { name: 'From', exact: true })
      .fill(local(Date.now() + 86_400_000))
      .catch(async () => page.getByLabel('From', { exact: true }).fill(local(Date.now() + 86_400_000)))
    await page.getByRole('button', { name: 'Apply filters', exact: true }).click()
    await expect.poll(() => status(page).innerText()).toMatch(/^0 entries/)
    await page.getByLabel('From', { exact: true }).fill(local(Date.now() - 3_600_000))
    await page.getByLabel('To', { exact: true }).fill(local(Date.now() + 86_400_000))
    await page.getByRole('button', { name: 'Apply filters', exact: true }).click()
    await expect.poll(() => status(page).innerText()).toMatch(/^([2-9]|\d\d+) entries/)
    await expect.poll(() => table(page).innerText()).toContain(placed.submission.cloid)
  })
})
