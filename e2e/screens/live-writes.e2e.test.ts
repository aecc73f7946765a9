import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Page } from 'playwright-core'
import { devOwner } from '../../sandbox/scenario/dev-keys'
import { openDesk, type DeskSession } from '../harness'
import { addDecimal, subDecimal } from '../../renderer/src/shared/utils/decimal'
import { firstRun, PASSPHRASE, openTab, seedCoolingOff } from './helpers'
import { shortAddress } from '../../main/contract/format'

/**
 * The writes live.e2e does not make (repay, withdraw, activation, agent approve and revoke,
 * earn cancel and instant), each made through the core as another window or `desk` would, and
 * every screen it affects (account pages, overview, credit page, agents page, earn page,
 * journal), open side by side in tabs, reaching the final state without any click.
 */
const owner = (i: number) => devOwner(i).address.toLowerCase()
// Accounts show as name and short address (the desk's one format).
const shortRe = (a: string) => new RegExp(shortAddress(a), 'i')
const COLD = '0x52908400098527886e0f7030069857d2e4169ee7'

describe('live screens follow repay, withdraw, activation, agents and earn without a click', () => {
  let desk: DeskSession
  let stopConfirm: () => void = () => {}
  const tabs: Page[] = []

  beforeAll(async () => {
    desk = await openDesk()
    await firstRun(desk.page)
    seedCoolingOff(desk, 1500)
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
  ): Promise<{ submission?: { state: string; cloid: string }; operationId?: string; status?: string; agent?: string | null }> {
    const r = await desk.core.dispatch(channel, args, { host: 'test' })
    if (!r.ok) throw new Error(`${channel}: ${r.error.code} ${r.error.message}`)
    return r.value as never
  }

  const subscriptions = async () => {
    const r = await desk.core.dispatch('stream.status', {}, { host: 'test' })
    if (!r.ok) throw new Error(r.error.code)
    return (r.value as { subscriptions: number }).subscriptions
  }
  const num = (text: string) => (/-?[0-9][0-9,]*(\.[0-9]+)?/.exec(text)?.[0] ?? '').replace(/,/g, '')
  const balanceCell = (p: Page, symbol: string, col = 1) =>
    p
      .getByRole('table', { name: 'Balances', exact: true })
      .locator('tbody tr')
      .filter({ has: p.locator('td:first-child', { hasText: new RegExp(`^${symbol}$`) }) })
      .locator('td')
      .nth(col)
  const positionCell = (p: Page, symbol: string) =>
    p
      .getByRole('table', { name: 'Credit positions', exact: true })
      .locator('tbody tr')
      .filter({ hasText: new RegExp(`^${symbol}`) })
      .locator('td')
      .nth(1)
  const overviewRow = (p: Page, a: string) =>
    p
      .getByTestId('overview-table')
      .locator('tr')
      .filter({ hasText: shortRe(a) })
  const journalText = (p: Page) =>
    p.getByRole('table', { name: 'Submissions' }).or(p.locator('[aria-label="Submissions"]')).first().innerText()
  /** The journal row of `cloid` reached a final state (no pending step left). */
  const journalFinal = async (p: Page, cloid: string) => {
    const t = await journalText(p)
    const at = t.indexOf(cloid.slice(0, 10))
    if (at < 0) return null
    return /accepted|reconciled|success/.exec(t.slice(Math.max(0, at - 300), at + 300))?.[0] ?? null
  }

  it('repay: cash account page, credit account page, credit health page, overview and journal', async () => {
    const [cash, creditAcct, creditPage, overview, journal] = [
      await tab(`/account/${owner(0)}`),
      await tab(`/account/${owner(3)}`),
      await tab(`/credit/${owner(3)}`),
      await tab('/overview'),
      await tab('/journal'),
    ]
    await balanceCell(cash, 'USDC').waitFor()
    await positionCell(creditAcct, 'USDC').waitFor()
    const contrib = creditPage
      .getByRole('table', { name: 'Asset contributions', exact: true })
      .locator('tbody tr')
      .filter({ hasText: /^USDC/ })
      .locator('td')
      .nth(1)
    await contrib.waitFor()
    await overviewRow(overview, owner(3)).waitFor()
    const before = {
      cash: num(await balanceCell(cash, 'USDC').innerText()),
      pos: num(await positionCell(creditAcct, 'USDC').innerText()),
      page: num(await contrib.innerText()),
    }
    expect(before.pos).toBe(before.page)
    const out = await write('repay.submit', { cashAccount: owner(0), creditAccount: owner(3), assetId: 1, amount: '12.5' })
    await expect
      .poll(async () => num(await balanceCell(cash, 'USDC').innerText()), { timeout: 15_000 })
      .toBe(subDecimal(before.cash, '12.5'))
    await expect
      .poll(async () => num(await positionCell(creditAcct, 'USDC').innerText()), { timeout: 15_000 })
      .toBe(addDecimal(before.pos, '12.5'))
    // the credit health page, opened before the write, follows by push
    await expect.poll(async () => num(await contrib.innerText()), { timeout: 15_000 }).toBe(addDecimal(before.pos, '12.5'))
    await expect.poll(() => journalFinal(journal, out.submission!.cloid), { timeout: 15_000 }).not.toBeNull()
    // the overview's credit cell has a value (or says why not), never a bare "unknown"
    expect(await overviewRow(overview, owner(3)).innerText()).not.toMatch(/—\s*unknown\b(?!:)/)
  })

  it('withdraw: previewed, then the account page, overview and journal', async () => {
    const r = await desk.core.dispatch(
      'addresses.add',
      { label: 'cold', address: COLD, chainId: '1', passphrase: PASSPHRASE },
      { host: 'test' },
    )
    expect(r.ok).toBe(true)
    const [page, overview, journal] = [await tab(`/account/${owner(1)}`), await tab('/overview'), await tab('/journal')]
    await balanceCell(page, 'USDC').waitFor()
    await overviewRow(overview, owner(1)).waitFor()
    const before = num(await balanceCell(page, 'USDC').innerText())
    // the preview comes from live state and states its age
    const args = { account: owner(1), assetId: 1, amount: '10', dstChainId: '1', dstAddress: COLD }
    let out: Awaited<ReturnType<typeof write>> | null = null
    // the entry is usable after the cooling-off (short on the sandbox)
    await expect
      .poll(
        async () => {
          const p = await desk.core.dispatch('withdraw.preview', args, { host: 'test' })
          if (!p.ok) return p.error.code
          const v = p.value as { warnings: string[]; dataAgeMs: number | null; dataMaxAgeMs: number }
          expect(v.dataAgeMs).not.toBeNull()
          expect(v.dataAgeMs!).toBeLessThanOrEqual(v.dataMaxAgeMs)
          return v.warnings.join(' ') || 'clean'
        },
        { timeout: 90_000, interval: 2000 },
      )
      .toBe('clean')
    out = await write('withdraw.submit', args)
    await expect.poll(async () => num(await balanceCell(page, 'USDC').innerText()), { timeout: 15_000 }).toBe(subDecimal(before, '10'))
    await expect
      .poll(
        async () => num(/([0-9][0-9,.]*) USDC/.exec(await overviewRow(overview, owner(1)).locator('td').nth(4).innerText())?.[1] ?? ''),
        { timeout: 15_000 },
      )
      .toBe(subDecimal(before, '10'))
    await expect.poll(() => journalFinal(journal, out!.submission!.cloid), { timeout: 15_000 }).not.toBeNull()
  }, 120_000)

  it('activation: the payer page, the new account in the overview (streamed from then on) and the journal', async () => {
    const [payer, overview, journal] = [await tab(`/account/${owner(0)}`), await tab('/overview'), await tab('/journal')]
    await balanceCell(payer, 'USDC').waitFor()
    const row = overviewRow(overview, owner(5))
    await row.waitFor()
    await expect.poll(() => row.innerText(), { timeout: 15_000 }).toMatch(/not activated/)
    // An account that does not exist yet streams its balance channel already ("no funds", live),
    // so its first funds show at once; it keeps streaming once active.
    await expect.poll(() => row.innerText(), { timeout: 15_000 }).toMatch(/\blive\b/)
    const before = num(await balanceCell(payer, 'USDC').innerText())
    const subsBefore = await subscriptions()
    const out = await write('activate.submit', { account: owner(0), target: owner(5), feeAssetId: 1 })
    await expect.poll(async () => num(await balanceCell(payer, 'USDC').innerText()), { timeout: 15_000 }).toBe(subDecimal(before, '1'))
    await expect.poll(() => row.innerText(), { timeout: 20_000 }).toMatch(/\bactive\b/)
    await expect.poll(() => journalFinal(journal, out.submission!.cloid), { timeout: 15_000 }).not.toBeNull()
    // the new account is streamed from now on, as it was before
    expect(await subscriptions()).toBeGreaterThanOrEqual(subsBefore)
    await expect.poll(() => row.innerText(), { timeout: 20_000 }).toMatch(/\blive\b/)
  })

  it('agents: approve and revoke show on the agents page and in the overview count', async () => {
    const [agents, overview] = [await tab(`/agents/${owner(1)}`), await tab('/overview')]
    const slots = agents.getByRole('table', { name: 'Agent slots', exact: true })
    const slot3 = slots.locator('tbody tr').nth(3)
    await slot3.waitFor()
    await expect.poll(() => slot3.innerText(), { timeout: 15_000 }).toMatch(/empty/)
    await overviewRow(overview, owner(1)).waitFor()
    const agentsLink = overviewRow(overview, owner(1)).getByRole('link', { name: /\/4 agents of / })
    await expect.poll(() => agentsLink.innerText(), { timeout: 15_000 }).not.toBe('0/4')
    const n0 = Number((await agentsLink.innerText()).split('/')[0])
    await write('agents.approve', { owner: owner(1), slot: 3 })
    await expect.poll(() => slot3.innerText(), { timeout: 15_000 }).toMatch(/0x[0-9a-f]{40}/i)
    await expect.poll(() => agentsLink.innerText(), { timeout: 15_000 }).toBe(`${n0 + 1}/4`)
    await write('agents.revoke', { owner: owner(1), slot: 3 })
    await expect.poll(() => slot3.innerText(), { timeout: 15_000 }).toMatch(/empty/)
    await expect.poll(() => agentsLink.innerText(), { timeout: 15_000 }).toBe(`${n0}/4`)
  })

  it('earn: a cancel and an instant withdrawal reach the queue, the balances and the history without a click', async () => {
    const page = await tab(`/earn/${owner(2)}`)
    const queue = page.getByRole('table', { name: 'Withdrawal queue', exact: true })
    const balances = page.getByRole('table', { name: 'Earn balances', exact: true })
    await balances.waitFor()
    const w = await write('earn.create', { account: owner(2), assetId: 1, amount: '6', type: 'scheduled' })
    const row = queue.locator('tbody tr').filter({ has: page.locator(`td[title="operation ${w.operationId}"]`) })
    await row.waitFor({ timeout: 15_000 })
    await write('earn.cancel', { account: owner(2), operationId: w.operationId })
    // a cancelled withdrawal leaves the queue (or shows cancelled there) and shows in the history
    await expect
      .poll(async () => ((await row.count()) === 0 ? 'gone' : /cancel/.test(await row.innerText()) ? 'gone' : 'queued'), {
        timeout: 20_000,
      })
      .toBe('gone')
    const history = page.getByRole('region', { name: 'Withdrawal history', exact: true })
    await expect.poll(() => history.innerText(), { timeout: 20_000 }).toMatch(/cancel/)
    const balancesBefore = await balances.innerText()
    const i = await write('earn.create', { account: owner(2), assetId: 1, amount: '20', type: 'instant' })
    expect(i.operationId).toMatch(/withdraw:/)
    // the earn balance moves by push (the pool has no stream: main re-reads pages on screen)
    await expect.poll(() => balances.innerText(), { timeout: 30_000 }).not.toBe(balancesBefore)
    await expect.poll(() => history.innerText(), { timeout: 30_000 }).toMatch(/instant/)
  }, 90_000)
})
