/**
 * Team custody in the browser (issue 32): two desks on one sandbox and one real PostgreSQL. On desk
 * A's Team screen, the admin splits an account's owner key between the two members; the approver's
 * proposal screen on desk B says its desk releases a share for the write; B approves; A executes and
 * the transfer lands exactly once on the exchange. axe clean on the custody panel and the proposal.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { DeskCore } from '../../main/core/app/compose'
import { startPostgres, type PostgresHandle } from '../../main/testing/postgres'
import { devOwner } from '../../sandbox/scenario/dev-keys'
import { openDesk, type DeskSession } from '../harness'
import { PASSPHRASE, approveUntil, firstRun, sandboxAdmin } from '../screens/helpers'
import { go, openSecondDesk, violations, type SecondDesk } from './desks'

const HELD = devOwner(0).address.toLowerCase()

async function call<T = unknown>(core: DeskCore, channel: string, args?: unknown): Promise<T> {
  const r = await core.dispatch(channel as never, args as never, { host: 'test' })
  if (!r.ok) throw new Error(`${channel}: ${r.error.code}: ${r.error.message}`)
  return r.value as T
}

describe('team custody: split on the Team screen, a share released for the approved write, the write lands once', () => {
  let db: PostgresHandle
  let a: DeskSession
  let b: SecondDesk
  let bob = ''

  beforeAll(async () => {
    db = await startPostgres()
    a = await openDesk()
    await firstRun(a.page)
    b = await openSecondDesk(a)
    await firstRun(b.page)
    const store = { connectionString: db.connectionString, password: db.password, passphrase: PASSPHRASE }
    for (const core of [a.core, b.core]) await call(core, 'team.configure', store)
    await call(a.core, 'team.init', { teamName: 'Ops', name: 'Alice', passphrase: PASSPHRASE })
    bob = (await call<{ address: string }>(b.core, 'team.join', { passphrase: PASSPHRASE })).address
    await call(a.core, 'team.members.add', { address: bob, name: 'Bob', roles: ['approver'] })
    await call(a.core, 'team.policy.set', {
      rules: [
        { id: 'transfer-4eyes', kinds: ['transfer'], then: { effect: 'approve', count: 1, roles: ['approver'] } },
        { id: 'rest', then: { effect: 'allow' } },
      ],
    })
  }, 240_000)
  afterAll(async () => {
    await b?.close()
    await a?.close()
    await db?.stop()
  })

  it('A splits the key on its Team screen; B is told it releases a share; the approved transfer lands once', async () => {
    const page = a.page
    await go(page, 'Team')
    const form = page.getByRole('form', { name: 'Put an account under team custody' })
    await form.waitFor({ timeout: 15_000 })
    const select = page.getByRole('combobox', { name: 'Account to put under team custody' })
    const value = await select.evaluate((el, held) => {
      const o = [...(el as HTMLSelectElement).options].find((x) => x.value.toLowerCase() === held)
      return o?.value ?? ''
    }, HELD)
    await select.selectOption(value)
    await page.getByRole('checkbox', { name: 'Alice holds a share' }).check()
    await page.getByRole('checkbox', { name: 'Bob holds a share' }).check()
    await page.getByRole('button', { name: 'Split the key among the holders' }).click()
    await approveUntil(page, page.getByTestId('custody-done'), 30_000)
    expect(await page.getByTestId('custody-done').innerText()).toMatch(/the key has left this vault/)
    await expect
      .poll(() => page.getByRole('table', { name: 'Team-held accounts' }).innerText(), { timeout: 15_000 })
      .toMatch(/2 of 2 \(split version 1\)/)
    expect(await violations(page)).toEqual([])

    const out = await call<{ proposalId: string; submission: { cloid: string } }>(a.core, 'transfer.submit', {
      from: HELD,
      to: devOwner(2).address,
      assetId: 1,
      amount: '2',
    })
    const id = out.proposalId
    await b.page.evaluate((p) => (location.hash = `#/approvals/${p}`), id)
    await b.page.getByTestId('custody-note').waitFor({ timeout: 15_000 })
    expect(await b.page.getByTestId('custody-note').innerText()).toMatch(/releases a share for this write/)
    expect(await violations(b.page)).toEqual([])
    await b.page.getByRole('button', { name: 'Approve the proposal', exact: true }).click()
    await approveUntil(b.page, b.page.getByTestId('proposal-status').and(b.page.locator('[data-status="approved"]')), 30_000)

    await page.evaluate((p) => (location.hash = `#/approvals/${p}`), id)
    const execute = page.getByRole('button', { name: 'Execute the approved proposal', exact: true })
    await execute.waitFor({ timeout: 15_000 })
    await execute.click()
    await approveUntil(page, page.getByTestId('proposal-status').and(page.locator('[data-status="final"]')), 60_000)
    const truth = (await sandboxAdmin(a, `ground-truth?cloid=${out.submission.cloid}`)) as { transactions: unknown[] }
    expect(truth.transactions).toHaveLength(1)
  }, 180_000)

  it('A re-splits the key from the Team screen: B releases its share to A, a new split version stands, axe clean', async () => {
    const { page } = a
    await go(page, 'Team')
    const held = page.getByRole('table', { name: 'Team-held accounts', exact: true })
    await held
      .getByRole('button', { name: /^Re-split the key of / })
      .first()
      .click()
    const form = page.getByRole('form', { name: 'Re-split a team-held key', exact: true })
    await form.waitFor()
    // Both members keep a share (pre-selected: the current holders who are still members).
    expect(await form.getByRole('checkbox', { name: 'Alice holds a new share' }).isChecked()).toBe(true)
    expect(await form.getByRole('checkbox', { name: 'Bob holds a new share' }).isChecked()).toBe(true)
    expect(await violations(page)).toEqual([])
    await form.getByRole('button', { name: 'Re-split the key among the new holders', exact: true }).click()
    await approveUntil(page, page.getByTestId('custody-resplit-done'), 60_000)
    expect(await page.getByTestId('custody-resplit-done').innerText()).toMatch(/Re-split: split version 2; the old shares are retired/)
    await expect.poll(() => held.innerText(), { timeout: 15_000 }).toMatch(/split version 2/)
  }, 120_000)
})
