/**
 * Team mode in the browser, end to end: two desks (two data directories, two vaults) on one
 * sandbox and one real PostgreSQL. Desk A starts the team and adds desk B's operator as an
 * approver; a withdrawal proposed on A's account page waits for B, B approves it on its Approvals
 * screen (its own recomputed preview beside A's), A executes it, and both desks show the final
 * outcome by push. The exchange's ground truth holds exactly one withdrawal. axe-core finds no
 * critical or serious violation on the Team, Approvals and proposal screens.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { devOwner } from '../../sandbox/scenario/dev-keys'
import { startPostgres, type PostgresHandle } from '../../main/testing/postgres'
import { openDesk, type DeskSession } from '../harness'
import { connect, go, openSecondDesk, violations, type SecondDesk } from '../team/desks'
import { PASSPHRASE, approveUntil, choose, firstRun, seedCoolingOff } from './helpers'

const COLD = '0x52908400098527886E0F7030069857D2E4169EE7' // nobody in the scenario owns it
const owner = (i: number) => devOwner(i).address

describe('team mode: proposal on one desk, approval on another, execution and the outcome on both', () => {
  let db: PostgresHandle
  let a: DeskSession
  let b: SecondDesk
  let proposalPath = ''
  const withdrawals = () => a.desk.sandbox.trading.groundTruth().filter((t) => t.actionType === 'withdraw').length

  beforeAll(async () => {
    db = await startPostgres()
    a = await openDesk()
    await firstRun(a.page)
    b = await openSecondDesk(a)
    await firstRun(b.page)
    seedCoolingOff(a, 1500)
    seedCoolingOff({ ...a, dataDir: b.dataDir }, 1500)
    for (const core of [a.core, b.core]) {
      const r = await core.dispatch(
        'addresses.add',
        { label: 'cold', address: COLD, chainId: '1', passphrase: PASSPHRASE },
        { host: 'test' },
      )
      expect(r.ok).toBe(true)
    }
  }, 240_000)
  afterAll(async () => {
    await b?.close()
    await a?.close()
    await db?.stop()
  })

  it('desk A starts the team; desk B joins with its identity address; A adds B as an approver', async () => {
    await connect(a.page, db)
    await a.page.getByRole('button', { name: 'Start the team as first admin', exact: true }).waitFor({ timeout: 30_000 })
    await a.page.getByRole('textbox', { name: 'Team name', exact: true }).fill('Ops')
    await a.page.getByRole('textbox', { name: 'Your name in the team', exact: true }).fill('Alice')
    await a.page.getByRole('textbox', { name: 'Vault passphrase to start the team', exact: true }).fill(PASSPHRASE)
    await a.page.getByRole('button', { name: 'Start the team as first admin', exact: true }).click()
    await a.page.getByRole('table', { name: 'Team members', exact: true }).waitFor({ timeout: 30_000 })

    await connect(b.page, db)
    await b.page.getByRole('textbox', { name: 'Vault passphrase to join', exact: true }).fill(PASSPHRASE)
    await b.page.getByRole('button', { name: 'Show my identity address', exact: true }).click()
    const idText = await b.page.getByTestId('my-identity').innerText({ timeout: 30_000 })
    const bAddress = /0x[0-9a-fA-F]{40}/.exec(idText)![0]

    await a.page.getByRole('textbox', { name: 'New member identity address', exact: true }).fill(bAddress)
    await a.page.getByRole('textbox', { name: 'New member name', exact: true }).fill('Bob')
    await a.page.getByRole('button', { name: 'Add member to the team', exact: true }).click()
    await expect
      .poll(() => a.page.getByRole('table', { name: 'Team members', exact: true }).innerText(), { timeout: 15_000 })
      .toMatch(/Bob[\s\S]*approver/)
    expect(await violations(a.page)).toEqual([])
    // B sees itself in the verified roster by push.
    await expect
      .poll(
        () =>
          b.page
            .getByRole('table', { name: 'Team members', exact: true })
            .innerText()
            .catch(() => ''),
        { timeout: 15_000 },
      )
      .toMatch(/Bob \(me\)/)

    // Withdrawals need one approver; everything else is allowed (a new version signed by A, the only admin, on its Team screen).
    await a.page.getByRole('button', { name: 'Change the rules: write a new policy version', exact: true }).click()
    const rules = [
      { id: 'withdrawals', kinds: ['withdraw'], then: { effect: 'approve', count: 1, roles: ['approver'] } },
      { id: 'rest', then: { effect: 'allow' } },
    ]
    await a.page.getByRole('textbox', { name: 'Team policy rules as JSON', exact: true }).fill(JSON.stringify(rules))
    await a.page.getByRole('button', { name: 'Save rules as a new policy version', exact: true }).click()
    await a.page.getByText(/Policy version \d+ is in force\./).waitFor({ timeout: 15_000 })
    await expect
      .poll(
        () =>
          b.page
            .getByRole('table', { name: 'Team policy rules', exact: true })
            .innerText()
            .catch(() => ''),
        { timeout: 15_000 },
      )
      .toMatch(/withdrawals[\s\S]*needs 1 approval from approver/)
    expect(await violations(b.page)).toEqual([])
  }, 180_000)

  it('a withdrawal proposed on A waits for B; B approves on its Approvals screen; A executes; both show the outcome', async () => {
    const before = withdrawals()
    // A proposes from the account page, as any withdrawal.
    await a.page.evaluate((acct) => {
      location.hash = '#/overview'
      location.hash = `#/account/${acct}`
    }, owner(0))
    await a.page.getByRole('tab', { name: 'Withdraw', exact: true }).click()
    await choose(a.page, 'Withdraw asset', /^USDC$/)
    await a.page.getByRole('textbox', { name: 'Withdraw amount', exact: true }).fill('10')
    await choose(a.page, 'Destination chain', 'chain 1')
    await choose(a.page, 'Destination', 'cold')
    await expect
      .poll(
        async () => {
          await a.page.getByRole('button', { name: 'Preview withdrawal', exact: true }).click()
          return a.page
            .getByRole('button', { name: 'Sign and submit withdrawal', exact: true })
            .isEnabled({ timeout: 3000 })
            .catch(() => false)
        },
        { timeout: 60_000, interval: 1500 },
      )
      .toBe(true)
    await a.page.getByRole('button', { name: 'Sign and submit withdrawal', exact: true }).click()

    // B: the count in its bar, then the queue, then the proposal.
    const link = b.page.getByRole('navigation', { name: 'Main', exact: true }).getByRole('link', { name: /^Approvals/ })
    await expect.poll(() => link.innerText(), { timeout: 15_000 }).toMatch(/Approvals\s*1/)
    await link.click()
    const row = b.page.getByRole('table', { name: 'Needs my approval', exact: true }).getByRole('link', { name: /^Open proposal: / })
    await row.first().waitFor({ timeout: 15_000 })
    expect(await violations(b.page)).toEqual([])
    proposalPath = (await row.first().getAttribute('href'))!.replace(/^#/, '')
    await row.first().click()
    // The review, field by field: B holds no account of the team, yet an honest proposal shows no difference.
    const review = b.page.getByRole('table', { name: 'Review, field by field', exact: true })
    await review.waitFor({ timeout: 15_000 })
    await b.page.getByTestId('review-same').waitFor()
    expect(await review.locator('tr[data-state="differs"]').count()).toBe(0)
    expect(await review.locator('tr[data-field="amount"]').innerText()).toMatch(/USDC/)
    expect(await violations(b.page)).toEqual([])
    // Nothing reached the exchange while the proposal waited.
    expect(withdrawals()).toBe(before)
    await b.page.getByRole('button', { name: 'Approve the proposal', exact: true }).click()
    // Approving is confirmed in main's dialog (amount, destination, value), with the passphrase when due.
    const approvedB = b.page.getByTestId('proposal-status').and(b.page.locator('[data-status="approved"]'))
    const asked = await approveUntil(b.page, approvedB, 30_000)
    expect(asked.some((t) => t.startsWith('Approve proposal:'))).toBe(true)
    await expect.poll(() => link.innerText(), { timeout: 15_000 }).toBe('Approvals')

    // A: the approved proposal, executed by the desk that holds the key.
    await a.page.evaluate((p) => (location.hash = `#${p}`), proposalPath)
    const execute = a.page.getByRole('button', { name: 'Execute the approved proposal', exact: true })
    await execute.waitFor({ timeout: 15_000 })
    await execute.click()
    const finalA = a.page.getByTestId('proposal-status').and(a.page.locator('[data-status="final"]'))
    await approveUntil(a.page, finalA, 60_000)
    await expect.poll(() => a.page.getByTestId('proposal-status').innerText(), { timeout: 30_000 }).toMatch(/outcome: accepted/)
    // B follows by push, without a click.
    await expect.poll(() => b.page.getByTestId('proposal-status').innerText(), { timeout: 15_000 }).toMatch(/done — outcome: accepted/)
    expect(await b.page.getByRole('table', { name: 'Who approved when', exact: true }).innerText()).toMatch(
      /approved[\s\S]*Bob[\s\S]*signed[\s\S]*Alice/,
    )
    expect(withdrawals()).toBe(before + 1)
    // History on both desks.
    for (const page of [a.page, b.page]) {
      await go(page, 'Approvals')
      await page.getByRole('tab', { name: 'History' }).click()
      await expect
        .poll(() => page.getByRole('table', { name: 'History', exact: true }).innerText(), { timeout: 15_000 })
        .toMatch(/done — accepted/)
    }
    expect(await violations(a.page)).toEqual([])
    // A's journal names the proposal the withdrawal came from, and opens it.
    const proposalId = proposalPath.split('/').at(-1)!
    await go(a.page, 'Journal')
    const toProposal = a.page.getByRole('link', { name: `Open team proposal ${proposalId}`, exact: true })
    await toProposal.waitFor({ timeout: 15_000 })
    expect(await violations(a.page)).toEqual([])
    await toProposal.click()
    await expect.poll(() => a.page.getByTestId('proposal-status').innerText(), { timeout: 15_000 }).toMatch(/outcome: accepted/)
  }, 240_000)
})
