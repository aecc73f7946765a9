import { readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Page } from 'playwright-core'
import { devOwner } from '../../sandbox/scenario/dev-keys'
import { openDesk, type DeskSession } from '../harness'
import { PASSPHRASE, approve, approveUntil, choose, firstRun, seedCoolingOff, shot } from './helpers'

/**
 * The operator's guardrails in the browser, against the live sandbox: each refusal shows its
 * reason and figures and nothing reaches the exchange (the sandbox's ground truth); a price-band
 * override typed by the operator places the order; halt leaves zero open orders and refuses writes
 * until resumed with the passphrase.
 */
const DEST = '0x52908400098527886E0F7030069857D2E4169EE7' // nobody in the scenario owns it
const owner = (i: number) => devOwner(i).address
const axePath = createRequire(import.meta.url).resolve('axe-core')

/** Critical and serious axe-core violations on the page now (colour contrast included: a real browser). */
async function violations(page: Page): Promise<string[]> {
  if (!(await page.evaluate(() => 'axe' in window))) await page.evaluate(readFileSync(axePath, 'utf8'))
  await page.waitForTimeout(300)
  return page.evaluate(async () => {
    const axe = (window as unknown as { axe: typeof import('axe-core') }).axe
    const r = await axe.run(document, { resultTypes: ['violations'] })
    return r.violations
      .filter((v) => v.impact === 'critical' || v.impact === 'serious')
      .flatMap((v) => v.nodes.map((n) => `${v.id} (${v.impact}): ${n.target.join(' ')} — ${n.failureSummary ?? ''}`))
  })
}

describe('operator guardrails (policy screen, refusals, override, halt)', () => {
  let desk: DeskSession
  const truth = () => desk.desk.sandbox.trading.groundTruth().length
  const dispatch = async (channel: string, args?: unknown) => desk.core.dispatch(channel, args, { host: 'test' })

  beforeAll(async () => {
    desk = await openDesk()
    await firstRun(desk.page)
    seedCoolingOff(desk, 1500)
  })
  afterAll(async () => {
    await desk?.close()
  })

  const goPolicy = (page: Page) =>
    page.getByRole('navigation', { name: 'Main', exact: true }).getByRole('link', { name: 'Policy', exact: true }).click()
  async function openAccount(page: Page, address: string, tab: 'Order ticket' | 'Transfer' | 'Withdraw'): Promise<void> {
    await page.evaluate((a) => {
      location.hash = `#/overview`
      location.hash = `#/account/${a}`
    }, address)
    await page.getByRole('tab', { name: tab, exact: true }).click()
  }
  /** Clicks a write button and approves any confirmation main raises until `done` shows. */
  async function write(page: Page, button: string, done: ReturnType<Page['locator']>): Promise<void> {
    await page.getByRole('button', { name: button, exact: true }).click()
    await approveUntil(page, done, 60_000)
  }

  it('a withdrawal to an address no longer in the address book is refused with its reason; nothing reaches the exchange', async () => {
    const { page } = desk
    await goPolicy(page)
    await page.getByRole('textbox', { name: 'Entry label', exact: true }).fill('cold')
    await page.getByRole('textbox', { name: 'Entry address', exact: true }).fill(DEST)
    await page.getByRole('textbox', { name: 'Entry chain id', exact: true }).fill('1')
    await page.getByRole('textbox', { name: 'Passphrase to add the entry', exact: true }).fill(PASSPHRASE)
    await page.getByRole('button', { name: 'Add to the address book', exact: true }).click()
    await expect.poll(() => page.getByTestId('usable-cold').innerText(), { timeout: 10_000 }).toBe('usable')
    expect(await page.getByRole('list', { name: 'Policy events', exact: true }).innerText()).toMatch(/address\.add/)
    await shot(page, 'policy')

    await openAccount(page, owner(0), 'Withdraw')
    await choose(page, 'Withdraw asset', /^USDC$/)
    await page.getByRole('textbox', { name: 'Withdraw amount', exact: true }).fill('10')
    await choose(page, 'Destination chain', 'chain 1')
    await choose(page, 'Destination', 'cold')
    await page.getByRole('button', { name: 'Preview withdrawal', exact: true }).click()
    await page.getByRole('button', { name: 'Sign and submit withdrawal', exact: true }).waitFor()
    // Another host (the desk command line) removes the entry after the form offered and previewed it.
    const removed = await dispatch('addresses.remove', { label: 'cold', passphrase: PASSPHRASE })
    expect(removed.ok).toBe(true)
    const before = truth()
    await page.getByRole('button', { name: 'Sign and submit withdrawal', exact: true }).click()
    await page.getByTestId('error-code').waitFor()
    expect(await page.getByTestId('error-code').innerText()).toBe('DestinationNotAllowed')
    const text = await page.locator('main').innerText()
    expect(text).toContain('is not in the address book')
    expect(await page.getByTestId('refusal-facts').innerText()).toMatch(new RegExp(`Destination\\s+${DEST} on chain 1`))
    await shot(page, 'withdraw-refused')
    expect(await page.getByRole('dialog', { name: 'Confirm signing' }).count()).toBe(0)
    expect(truth()).toBe(before)
  })

  it('a transfer over the rolling limit is refused with the limit, what is used and when room frees up', async () => {
    const { page } = desk
    await goPolicy(page)
    await page.getByRole('combobox', { name: 'Rule', exact: true }).selectOption('transfer-daily-limit-usd')
    await page.getByRole('textbox', { name: 'New value', exact: true }).fill('30')
    await page.getByRole('button', { name: 'Apply rule change', exact: true }).click()
    await page.getByText('transfer-daily-limit-usd is now $30.00 (in force now)').waitFor()

    await openAccount(page, owner(0), 'Transfer')
    await choose(page, 'Transfer to', owner(2).toLowerCase().slice(0, 10))
    await choose(page, 'Transfer asset', /^USDC$/)
    await page.getByRole('textbox', { name: 'Transfer amount', exact: true }).fill('12.5')
    await page.getByRole('button', { name: 'Preview transfer', exact: true }).click()
    await write(page, 'Sign and submit transfer', page.getByTestId('submission-outcome').filter({ hasText: 'success' }))
    // The form started over: no second send of the same transfer.
    expect(await page.getByRole('textbox', { name: 'Transfer amount', exact: true }).inputValue()).toBe('')

    // 12.5 used of 30: a 10 transfer previews clean...
    await page.getByRole('textbox', { name: 'Transfer amount', exact: true }).fill('10')
    await page.getByRole('button', { name: 'Preview transfer', exact: true }).click()
    await page.getByRole('region', { name: 'Preview of what will be signed', exact: true }).waitFor()
    // ...then the limit is tightened to 20 elsewhere before the operator signs: main refuses, with the figures.
    expect((await dispatch('policy.set', { name: 'transfer-daily-limit-usd', value: '20' })).ok).toBe(true)
    const before = truth()
    await page.getByRole('button', { name: 'Sign and submit transfer', exact: true }).click()
    const facts = page.getByTestId('refusal-facts')
    await facts.waitFor()
    expect(await page.getByTestId('error-code').innerText()).toBe('LimitExceeded')
    const f = await facts.innerText()
    expect(f).toMatch(/Limit\s+\$20\.00/)
    expect(f).toMatch(/Already used \(last 24 h\)\s+\$12\.50/)
    expect(f).toMatch(/This amount\s+\$10\.00/)
    expect(f).toMatch(/Room frees up at\s+\d{4}-\d\d-\d\d \d\d:\d\d:\d\d/)
    expect(truth()).toBe(before)

    // previewed again, the refusal is predicted and Sign is disabled with the reason
    await page.getByRole('textbox', { name: 'Transfer amount', exact: true }).fill('10.0')
    await page.getByRole('button', { name: 'Preview transfer', exact: true }).click()
    await page.getByTestId('sign-blocked').waitFor()
    expect(await page.getByTestId('sign-blocked').innerText()).toMatch(
      /Cannot sign: Refused by policy \(LimitExceeded\).*already used in the last 24 h: 12\.5.*frees up at/,
    )
    await shot(page, 'limit-refused')
    expect(await page.getByRole('button', { name: 'Sign and submit transfer', exact: true }).isDisabled()).toBe(true)
    expect(truth()).toBe(before)
  })

  it('an order outside the price band is refused with the phrase to type; typed, the same order is placed', async () => {
    const { page } = desk
    await openAccount(page, owner(1), 'Order ticket')
    await choose(page, 'Market', /^ETH\/USDC$/)
    await page.getByRole('textbox', { name: 'Limit price', exact: true }).fill('3700')
    await page.getByRole('textbox', { name: 'Quantity', exact: true }).fill('0.01')
    const before = truth()
    await page.getByRole('button', { name: 'Place order', exact: true }).click()
    await page.getByTestId('band-phrase').waitFor()
    expect(await page.getByTestId('error-code').innerText()).toBe('PriceOutsideBand')
    expect(await page.getByTestId('refusal-facts').innerText()).toMatch(/Band\s+5%[\s\S]*Reference\s+3450\.5/)
    const phrase = await page.getByTestId('band-phrase').innerText()
    expect(phrase).toBe('BUY MARKET 2 AT 3700')
    expect(truth()).toBe(before)
    const place = page.getByRole('button', { name: 'Place order outside the band', exact: true })
    await page.getByRole('textbox', { name: 'Override phrase', exact: true }).fill('BUY MARKET 2 AT 370')
    expect(await place.isDisabled()).toBe(true)
    await page.getByRole('textbox', { name: 'Override phrase', exact: true }).fill(phrase)
    await place.click()
    await approveUntil(page, page.getByTestId('submission-outcome').filter({ hasText: 'success' }), 60_000)
    expect(truth()).toBe(before + 1)
    const events = await dispatch('policy.show')
    expect(events.ok && JSON.stringify(events.value)).toContain('override.priceBand')
  })

  it('halt leaves zero open orders on every account and refuses writes until resumed with the passphrase', async () => {
    const { page } = desk
    // A resting order to cancel (a buy well below the ask, inside the band).
    await openAccount(page, owner(1), 'Order ticket')
    await choose(page, 'Market', /^ETH\/USDC$/)
    await page.getByRole('textbox', { name: 'Limit price', exact: true }).fill('3300')
    await page.getByRole('textbox', { name: 'Quantity', exact: true }).fill('0.01')
    // An owner-key order asks first (the ticket still shows the previous order's outcome: answer the dialog itself).
    await page.getByRole('button', { name: 'Place order', exact: true }).click()
    await approve(page)
    const open = () => [0, 1, 2, 3, 4, 5].reduce((n, i) => n + desk.desk.sandbox.trading.openOrders(owner(i)).orders.length, 0)
    await expect.poll(open, { timeout: 30_000 }).toBeGreaterThan(0)

    await page.getByRole('button', { name: 'Halt trading', exact: true }).click()
    await page.getByRole('button', { name: 'Halt and cancel every open order', exact: true }).click()
    const results = page.getByRole('table', { name: 'Halt result per account', exact: true })
    await approveUntil(page, results, 90_000)
    const rows = await results.locator('tbody tr').allInnerTexts()
    expect(rows.length).toBe(6)
    for (const r of rows) expect(r).toContain('verified zero')
    await shot(page, 'halt')
    expect(open()).toBe(0)

    // While halted: the write buttons are disabled, and main refuses a write from any host.
    await page.getByRole('button', { name: 'Trading halted: resume or review', exact: true }).click()
    await page.getByTestId('halt-banner').waitFor()
    await openAccount(page, owner(1), 'Order ticket')
    await choose(page, 'Market', /^ETH\/USDC$/)
    await page.getByRole('textbox', { name: 'Limit price', exact: true }).fill('3300')
    await page.getByRole('textbox', { name: 'Quantity', exact: true }).fill('0.01')
    expect(await page.getByRole('button', { name: 'Place order', exact: true }).isDisabled()).toBe(true)
    const t0 = truth()
    const refused = await dispatch('orders.place', {
      account: owner(1),
      marketId: '2',
      side: 'bid',
      orderType: 'limit',
      tif: 'gtc',
      price: '3300',
      quantity: '0.01',
    })
    expect(!refused.ok && refused.error.code).toBe('WritesHalted')
    expect(truth()).toBe(t0)

    // Resume asks for the passphrase; a wrong one keeps the halt.
    await page.getByRole('button', { name: 'Resume or review the halt', exact: true }).click()
    await page.getByRole('textbox', { name: 'Passphrase to resume trading', exact: true }).fill('not the passphrase')
    await page.getByRole('button', { name: 'Resume trading', exact: true }).click()
    await page.getByTestId('error-code').filter({ hasText: 'PassphraseIncorrect' }).waitFor()
    await page.getByRole('textbox', { name: 'Passphrase to resume trading', exact: true }).fill(PASSPHRASE)
    await page.getByRole('button', { name: 'Resume trading', exact: true }).click()
    await page.getByRole('button', { name: 'Halt trading', exact: true }).waitFor()
    expect(await page.getByTestId('halt-banner').count()).toBe(0)
    const place = page.getByRole('button', { name: 'Place order', exact: true })
    await expect.poll(() => place.isDisabled()).toBe(false)
    await place.click()
    await approve(page) // an owner-key order asks first
    await expect.poll(truth, { timeout: 30_000 }).toBe(t0 + 1)
  })

  it('the policy screen, the halt panel and the guardrail forms have no serious accessibility violations', async () => {
    const { page } = desk
    await goPolicy(page)
    await page.getByRole('table', { name: 'Address book', exact: true }).waitFor()
    expect(await violations(page)).toEqual([])
    await page.getByRole('button', { name: 'Halt trading', exact: true }).click()
    await page.getByRole('region', { name: 'Halt trading panel', exact: true }).waitFor()
    expect(await violations(page)).toEqual([])
    await page.getByRole('button', { name: 'Keep trading', exact: true }).click()
    await openAccount(page, owner(0), 'Withdraw')
    expect(await violations(page)).toEqual([])
  })
})
