/**
 * A guardrail change under the team policy, in the browser: two desks (two data directories, two
 * vaults) on one sandbox and one real PostgreSQL. The policy lets anyone tighten a limit but puts
 * loosening one, and adding an address-book entry, behind an approver. On desk A's Policy screen
 * a tightening applies at once; an address-book entry and a raised limit each say "Sent for
 * approval — nothing changed yet" and change nothing; desk B approves both on its Approvals screen;
 * A applies them on its own and its Policy screen shows them; both desks show the outcome.
 * (Starting the team through the Team screen is team.e2e.test.ts's subject: here it is set up
 * through the desks' channels.)
 */
import type { Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { DeskCore } from '../../main/core/app/compose'
import { startPostgres, type PostgresHandle } from '../../main/testing/postgres'
import { openDesk, type DeskSession } from '../harness'
import { PASSPHRASE, approveUntil, firstRun, seedCoolingOff } from '../screens/helpers'
import { go, openSecondDesk, violations, type SecondDesk } from './desks'

const COLD = '0x52908400098527886E0F7030069857D2E4169EE7' // nobody in the scenario owns it
const approver1 = { effect: 'approve', count: 1, roles: ['approver'] }

async function call<T = unknown>(core: DeskCore, channel: string, args?: unknown): Promise<T> {
  const r = (await core.dispatch(channel as never, args as never, { host: 'test' })) as
    { ok: true; value: T } | { ok: false; error: { code: string; message: string } }
  if (!r.ok) throw new Error(`${channel}: ${r.error.code}: ${r.error.message}`)
  return r.value
}

/** The Policy screen read afresh (it reads main's settings when it opens). */
async function openPolicy(page: Page): Promise<void> {
  await go(page, 'Team')
  await go(page, 'Policy')
  await page.getByRole('table', { name: 'Address book', exact: true }).waitFor()
}

const ruleRow = (page: Page, name: string) => page.getByRole('row').filter({ has: page.getByRole('cell', { name, exact: true }) })

describe('team mode: a guardrail change sent for approval on one desk, approved on another, applied and shown', () => {
  let db: PostgresHandle
  let a: DeskSession
  let b: SecondDesk

  beforeAll(async () => {
    db = await startPostgres()
    a = await openDesk()
    await firstRun(a.page)
    b = await openSecondDesk(a)
    await firstRun(b.page)
    seedCoolingOff(a, 1500)
    seedCoolingOff({ ...a, dataDir: b.dataDir }, 1500)
    const store = { connectionString: db.connectionString, password: db.password, passphrase: PASSPHRASE }
    for (const core of [a.core, b.core]) await call(core, 'team.configure', store)
    await call(a.core, 'team.init', { teamName: 'Ops', name: 'Alice', passphrase: PASSPHRASE })
    const { address } = await call<{ address: string }>(b.core, 'team.join', { passphrase: PASSPHRASE })
    await call(a.core, 'team.members.add', { address, name: 'Bob', roles: ['approver'] })
    const { version } = await call<{ version: number }>(a.core, 'team.policy.set', {
      rules: [
        { id: 'limits-tighten', kinds: ['limits'], direction: 'tighten', then: { effect: 'allow' } },
        { id: 'limits-loosen', kinds: ['limits'], direction: 'loosen', then: approver1 },
        { id: 'book-remove', kinds: ['address_book'], direction: 'tighten', then: { effect: 'allow' } },
        { id: 'book-add', kinds: ['address_book'], direction: 'loosen', then: approver1 },
        { id: 'rest', then: { effect: 'allow' } },
      ],
    })
    // B has verified that version before the tests start (expect.poll is for tests only).
    for (let i = 0; (await call<{ policyVersion: number | null }>(b.core, 'team.status')).policyVersion !== version; i++) {
      if (i > 150) throw new Error(`desk B never verified policy version ${version}`)
      await new Promise((r) => setTimeout(r, 100))
    }
  }, 240_000)
  afterAll(async () => {
    await b?.close()
    await a?.close()
    await db?.stop()
  })

  it("the Team screen shows each rule's direction", async () => {
    await go(b.page, 'Team')
    await expect
      .poll(
        () =>
          b.page
            .getByRole('table', { name: 'Team policy rules', exact: true })
            .innerText()
            .catch(() => ''),
        { timeout: 15_000 },
      )
      .toMatch(
        /limits-tighten\s*limits when tightening\s*allow[\s\S]*limits-loosen\s*limits when loosening\s*needs 1 approval from approver/,
      )
  }, 60_000)

  it('A: a tightening applies at once; an address-book entry and a raised limit are sent for approval and change nothing', async () => {
    const page = a.page
    await openPolicy(page)
    await page.getByRole('combobox', { name: 'Rule', exact: true }).selectOption('withdraw-limit-usd')
    await page.getByRole('textbox', { name: 'New value', exact: true }).fill('500')
    await page.getByRole('button', { name: 'Apply rule change', exact: true }).click()
    await page.getByText('withdraw-limit-usd is now $500.00 (in force now)').waitFor({ timeout: 15_000 })

    // Adding an address loosens: sent for approval.
    await page.getByRole('textbox', { name: 'Entry label', exact: true }).fill('treasury-cold')
    await page.getByRole('textbox', { name: 'Entry address', exact: true }).fill(COLD)
    await page.getByRole('textbox', { name: 'Entry chain id', exact: true }).fill('1')
    await page.getByRole('textbox', { name: 'Passphrase to add the entry', exact: true }).fill(PASSPHRASE)
    await page.getByRole('button', { name: 'Add to the address book', exact: true }).click()
    const notices = page.getByTestId('proposed-notice')
    await notices.first().waitFor({ timeout: 15_000 })
    expect(await notices.first().innerText()).toMatch(
      /Sent for approval — nothing changed yet[\s\S]*Address book: add "treasury-cold"[\s\S]*needs 0 of 1 approval\(s\) from approver \(rule book-add\)/,
    )

    // Raising the limit loosens: the passphrase, as alone, then sent for approval.
    await page.getByRole('combobox', { name: 'Rule', exact: true }).selectOption('withdraw-limit-usd')
    await page.getByRole('textbox', { name: 'New value', exact: true }).fill('800')
    await page.getByRole('button', { name: 'Apply rule change', exact: true }).click()
    await page.getByRole('textbox', { name: 'Passphrase to loosen the rule', exact: true }).fill(PASSPHRASE)
    await page.getByRole('button', { name: 'Loosen after the cooling-off', exact: true }).click()
    await expect.poll(() => notices.count(), { timeout: 15_000 }).toBe(2)
    // (the rule form's notice sits above the address book's)
    expect(await notices.filter({ hasText: 'Limit withdraw-limit-usd' }).innerText()).toMatch(
      /Sent for approval — nothing changed yet[\s\S]*Limit withdraw-limit-usd: set to 800 \(loosening\)[\s\S]*rule limits-loosen/,
    )
    expect(await violations(page)).toEqual([])

    // Nothing changed yet, read afresh from main.
    await openPolicy(page)
    expect(await page.getByRole('table', { name: 'Address book', exact: true }).innerText()).not.toContain('treasury-cold')
    expect(await ruleRow(page, 'withdraw-limit-usd').innerText()).toMatch(/\$500\.00/)
    expect(await ruleRow(page, 'withdraw-limit-usd').innerText()).not.toMatch(/\$800/)
  }, 120_000)

  it('B approves both on its Approvals screen; A applies them on its own and its Policy screen shows them', async () => {
    const link = b.page.getByRole('navigation', { name: 'Main', exact: true }).getByRole('link', { name: /^Approvals/ })
    await expect.poll(() => link.innerText(), { timeout: 15_000 }).toMatch(/Approvals\s*2/)
    await link.click()
    const needs = b.page.getByRole('table', { name: 'Needs my approval', exact: true })
    await expect
      .poll(() => needs.innerText().catch(() => ''), { timeout: 15_000 })
      .toMatch(/(Address book: add "treasury-cold"[\s\S]*Limit withdraw-limit-usd: set to 800 \(loosening\))|(Limit[\s\S]*Address book)/)
    expect(await violations(b.page)).toEqual([])

    for (const title of [/^Open proposal: Address book: add "treasury-cold"/, /^Open proposal: Limit withdraw-limit-usd: set to 800/]) {
      await go(b.page, 'Approvals')
      await needs.getByRole('link', { name: title }).click()
      await b.page.getByRole('button', { name: 'Approve the proposal', exact: true }).click()
      // The approval is confirmed in main's dialog first (with the passphrase when due).
      await approveUntil(
        b.page,
        b.page.getByTestId('proposal-status').and(b.page.locator('[data-status="approved"], [data-status="final"]')),
        30_000,
      )
      // A applies it by itself once the quorum shows; B sees the outcome by push, without a click.
      await expect.poll(() => b.page.getByTestId('proposal-status').innerText(), { timeout: 30_000 }).toMatch(/done — outcome: accepted/)
    }
    await expect.poll(() => link.innerText(), { timeout: 15_000 }).toBe('Approvals')

    // A: the entry is in its address book (usable after the cooling-off), the raised limit in force after it.
    await expect
      .poll(
        async () => {
          await openPolicy(a.page)
          return `${await a.page.getByRole('table', { name: 'Address book', exact: true }).innerText()}\n${await ruleRow(a.page, 'withdraw-limit-usd').innerText()}`
        },
        { timeout: 30_000, interval: 1000 },
      )
      .toMatch(/treasury-cold[\s\S]*withdraw-limit-usd\s*\$800\.00/)
    expect(await a.page.getByRole('list', { name: 'Policy events', exact: true }).innerText()).toMatch(/address\.add/)
    // And both proposals are done in A's history.
    await go(a.page, 'Approvals')
    await a.page.getByRole('tab', { name: 'History' }).click()
    await expect
      .poll(() => a.page.getByRole('table', { name: 'History', exact: true }).innerText(), { timeout: 15_000 })
      .toMatch(/treasury-cold[\s\S]*done — accepted|done — accepted[\s\S]*treasury-cold/)
    expect((await a.page.getByRole('table', { name: 'History', exact: true }).innerText()).match(/done — accepted/g)).toHaveLength(2)
  }, 180_000)
})
