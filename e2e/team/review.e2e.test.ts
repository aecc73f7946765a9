/**
 * The approver's review in the browser (issue 31.1): two desks on one sandbox and one real
 * PostgreSQL. Desk B (an approver holding no account of the team) opens a proposal whose stated
 * destination is not the one its exact action pays (written into the chain by a third member's
 * identity key, as a desk running altered software could): the review marks exactly that field, says
 * so in an alert, and the confirmation B must pass to approve names the difference. Declining it
 * approves nothing. axe finds nothing critical or serious on the review or the dialog.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { DeskCore } from '../../main/core/app/compose'
import { TeamStore, lifecycleEntry, proposalPayload, signedEntry, verifyStore } from '../../main/core/team'
import { operator } from '../../main/core/team/testing/team-fixture'
import { startPostgres, type PostgresHandle } from '../../main/testing/postgres'
import { devOwner } from '../../sandbox/scenario/dev-keys'
import { openDesk, type DeskSession } from '../harness'
import { PASSPHRASE, firstRun } from '../screens/helpers'
import { go, openSecondDesk, violations, type SecondDesk } from './desks'

const OWNER = devOwner(0).address.toLowerCase()
const STATED = devOwner(2).address.toLowerCase()
const PAID = '0x3333333333333333333333333333333333333333'

async function call<T = unknown>(core: DeskCore, channel: string, args?: unknown): Promise<T> {
  const r = await core.dispatch(channel as never, args as never, { host: 'test' })
  if (!r.ok) throw new Error(`${channel}: ${r.error.code}: ${r.error.message}`)
  return r.value as T
}

describe("team mode: the approver's review marks exactly the field that differs", () => {
  let db: PostgresHandle
  let a: DeskSession
  let b: SecondDesk
  const mallory = operator('mallory')
  let id = ''

  beforeAll(async () => {
    db = await startPostgres()
    a = await openDesk()
    await firstRun(a.page)
    b = await openSecondDesk(a)
    await firstRun(b.page)
    const store = { connectionString: db.connectionString, password: db.password, passphrase: PASSPHRASE }
    for (const core of [a.core, b.core]) await call(core, 'team.configure', store)
    await call(a.core, 'team.init', { teamName: 'Ops', name: 'Alice', passphrase: PASSPHRASE })
    const { address } = await call<{ address: string }>(b.core, 'team.join', { passphrase: PASSPHRASE })
    await call(a.core, 'team.members.add', { address, name: 'Bob', roles: ['approver'] })
    await call(a.core, 'team.members.add', { address: mallory.address, name: 'Mal', roles: ['trader'] })
    await call(a.core, 'team.policy.set', {
      rules: [
        { id: 'transfer-4eyes', kinds: ['transfer'], then: { effect: 'approve', count: 1, roles: ['approver'] } },
        { id: 'rest', then: { effect: 'allow' } },
      ],
    })
    const s = await TeamStore.open({ connectionString: db.connectionString, password: db.password })
    try {
      const { state } = await verifyStore(s)
      const net = await call<{ selected: string }>(a.core, 'networks.list')
      const at = Date.now()
      const action = { type: 'transfer', to: PAID, asset_id: '1', amount: '100000000', cloid: '0x' + 'cd'.repeat(16) }
      const payload = proposalPayload({
        network: net.selected,
        exchange: 'sandbox', // shown beside the network only; the review reads the action itself
        account: OWNER,
        signer: OWNER,
        kind: 'transfer',
        action,
        cloid: action.cloid,
        title: 'Transfer 1 USDC',
        preview: ['transfer 1 USDC', `to ${STATED}`],
        usd: 100000000n,
        windowUsd: 0n,
        destination: STATED,
        policyVersion: state.policy!.version,
        rule: 'transfer-4eyes',
        needs: { count: 1, roles: ['approver'] },
        at,
        expiresAt: at + 3600_000,
      })
      const entry = await signedEntry(state.roster!.teamId, lifecycleEntry(state, 'proposal', payload, mallory.address), [mallory])
      await s.append(entry)
      id = entry.digest
    } finally {
      await s.close()
    }
  }, 240_000)
  afterAll(async () => {
    await b?.close()
    await a?.close()
    await db?.stop()
  })

  it('B sees the destination marked, and only it; the confirmation names it; declined, nothing is approved', async () => {
    const page = b.page
    await go(page, 'Approvals')
    await page.evaluate((p) => (location.hash = `#/approvals/${p}`), id)
    const review = page.getByRole('table', { name: 'Review, field by field', exact: true })
    await review.waitFor({ timeout: 15_000 })
    await page.getByTestId('review-differs').waitFor({ timeout: 15_000 })
    expect(await page.getByTestId('review-differs').innerText()).toMatch(/one field differently from the proposal: Destination/)
    const marked = await review.locator('tr[data-state="differs"]').evaluateAll((rows) => rows.map((r) => r.getAttribute('data-field')))
    expect(marked).toEqual(['destination'])
    expect(await review.locator('tr[data-field="destination"]').innerText()).toMatch(/0x3333…3333[\s\S]*differs/)
    expect(await violations(page)).toEqual([])

    await page.getByRole('button', { name: 'Approve the proposal', exact: true }).click()
    const dialog = page.getByRole('dialog', { name: 'Confirm signing' })
    await dialog.waitFor({ timeout: 15_000 })
    expect(await dialog.innerText()).toMatch(/DIFFERS from what this desk reads: Destination/)
    expect(await violations(page)).toEqual([])
    await dialog.getByRole('button', { name: 'Decline and do not sign', exact: true }).click()
    await page
      .getByRole('alert')
      .filter({ hasText: /ConfirmationDeclined|declined/ })
      .first()
      .waitFor({ timeout: 15_000 })
    const detail = await call<{ approvals: unknown[]; status: string }>(b.core, 'team.proposal', { id })
    expect(detail).toMatchObject({ approvals: [], status: 'open' })
  }, 120_000)
})
