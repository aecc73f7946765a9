import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { devOwner } from '../../sandbox/scenario/dev-keys'
import { openDesk, type DeskSession } from '../harness'
import { approveUntil, choose, firstRun, nav, sandboxAdmin, shot } from './helpers'

// Scenario: owner 2 has 3000 of asset 1 in the pool and no active withdrawal for it.
const owner2 = new RegExp(devOwner(2).address, 'i')
const OP = /withdraw:0x[0-9a-fA-F]{40}:\d+/

describe('earn withdrawals', () => {
  let desk: DeskSession
  beforeAll(async () => {
    desk = await openDesk()
    await firstRun(desk.page)
    await nav(desk.page, 'Earn')
    await choose(desk.page, 'Earn account', owner2)
    await desk.page.getByRole('table', { name: 'Earn balances', exact: true }).waitFor()
  })
  afterAll(async () => {
    await desk?.close()
  })

  const result = (re: RegExp) => desk.page.getByRole('status').filter({ hasText: re })
  /** The result line about one operation: it names the withdrawal by type, amount and time; the id is only in its attributes. */
  const resultOf = (id: string, re: RegExp) => desk.page.locator(`[role="status"][data-operation="${id}"]`).filter({ hasText: re })
  const queueRow = (id: string) =>
    desk.page
      .getByRole('table', { name: 'Withdrawal queue', exact: true })
      .locator('tbody tr')
      .filter({ has: desk.page.getByRole('button', { name: `Claim ${id}`, exact: true }) })

  async function create(type: 'scheduled' | 'instant', amount: string): Promise<string> {
    const { page } = desk
    await choose(page, 'Withdrawal asset', /^USDC$/)
    await choose(page, 'Withdrawal type', type)
    await page.getByRole('textbox', { name: 'Gross amount', exact: true }).fill(amount)
    await page.getByRole('button', { name: 'Create withdrawal', exact: true }).click()
    const done = result(new RegExp(`^${type} withdrawal of ${amount} \\S+, created \\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\d:\\d\\d: `))
    await approveUntil(page, done)
    expect(await done.innerText()).not.toMatch(OP)
    return OP.exec((await done.getAttribute('data-operation')) ?? '')![0]
  }

  it('creates a scheduled withdrawal with a live countdown, and cancels it', async () => {
    const { page } = desk
    const id = await create('scheduled', '10')
    const row = queueRow(id)
    await row.waitFor()
    const first = await row.getByTestId('claim-countdown').innerText()
    expect(first).toMatch(/^in \dm \d+s$/)
    await expect.poll(() => row.getByTestId('claim-countdown').innerText()).not.toBe(first)
    expect(await row.getByRole('button', { name: `Claim ${id}`, exact: true }).isDisabled()).toBe(true)
    expect(await row.getByRole('button', { name: `Cancel ${id}`, exact: true }).isEnabled()).toBe(true)
    await shot(page, 'earn')
    await row.getByRole('button', { name: `Cancel ${id}`, exact: true }).click()
    await approveUntil(page, resultOf(id, /: cancelled/))
  })

  it('claims another scheduled withdrawal once its wait is over', async () => {
    const { page } = desk
    const id = await create('scheduled', '5')
    const row = queueRow(id)
    await row.waitFor()
    // The sandbox's wait is 120 s; its admin API ends it now instead of the test sleeping.
    await sandboxAdmin(desk, 'earn/claimable', { operation_id: id })
    // No click: the earn page on screen is re-read by main and pushed when it changes.
    const claim = row.getByRole('button', { name: `Claim ${id}`, exact: true })
    await expect.poll(() => claim.isEnabled(), { timeout: 15_000 }).toBe(true)
    expect(await row.getByRole('button', { name: `Cancel ${id}`, exact: true }).isDisabled()).toBe(true)
    await claim.click()
    await approveUntil(page, resultOf(id, /: (claimed|authoriz|transferring)/))
  })

  it('creates an instant withdrawal with its fee and net shown before and after', async () => {
    const { page } = desk
    await choose(page, 'Withdrawal asset', /^USDC$/)
    await choose(page, 'Withdrawal type', 'instant')
    await page.getByRole('textbox', { name: 'Gross amount', exact: true }).fill('100')
    // One active withdrawal per asset: wait for the claimed one's payout to finish.
    // It follows by push (no Refresh click): the button enables when the payout is done.
    const createButton = page.getByRole('button', { name: 'Create withdrawal', exact: true })
    await expect.poll(() => createButton.isEnabled(), { timeout: 40_000 }).toBe(true)
    const feeBox = await page.getByRole('status', { name: 'Fee and net', exact: true }).innerText()
    expect(feeBox).toMatch(/Fee: 0\.3 \S+ \(0\.3%, estimate\)/)
    expect(feeBox).toMatch(/Net: 99\.7 /)
    const id = await create('instant', '100')
    expect(await resultOf(id, /gross/).innerText()).toMatch(/gross 100 \S+, fee 0\.3 \S+, net 99\.7 /)
  })
})
