import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { devOwner } from '../../sandbox/scenario/dev-keys'
import { openDesk, type DeskSession } from '../harness'
import { approve, choose, firstRun, nav, sandboxAdmin, shot, waitForSubmission } from './helpers'

describe('an injected timeout', () => {
  let desk: DeskSession
  beforeAll(async () => {
    desk = await openDesk()
    await firstRun(desk.page)
  })
  afterAll(async () => {
    await desk?.close()
  })

  it('shows "outcome unknown, reconciling" and ends reconciled by cloid, never resubmitted', async () => {
    const { page } = desk
    // The next /trade answers 504 NodeUnreachable although the transaction executes.
    await sandboxAdmin(desk, 'faults', { trading: { nodeUnreachable504: { count: 1, executed: true } } })
    await nav(page, 'Settle and repay')
    await page.getByRole('button', { name: 'Repay mode', exact: true }).click()
    await choose(page, 'Credit account', new RegExp(devOwner(3).address, 'i'))
    await choose(page, 'Cash account', new RegExp(devOwner(0).address, 'i'))
    await choose(page, 'Asset', /^USDC$/)
    await page.getByRole('textbox', { name: 'Amount', exact: true }).fill('10')
    await page.getByRole('button', { name: 'Preview', exact: true }).click()
    await page.getByRole('button', { name: 'Sign and submit repay', exact: true }).click()
    await approve(page)
    await page.getByTestId('error-code').filter({ hasText: 'TradeOutcomeUnknown' }).waitFor()
    expect(await page.getByTestId('error-advice').innerText()).toMatch(/do not resubmit/)
    expect(await waitForSubmission(page, /reconciled/, 60_000)).toBe('reconciled')
    // Executed exactly once on the exchange: reconciled by its cloid, never signed again.
    const cloid = (await page.getByRole('region', { name: 'Submission status', exact: true }).innerText()).match(/0x[0-9a-f]{32}/)![0]
    const truth = (await sandboxAdmin(desk, `ground-truth?cloid=${cloid}`)) as { transactions: unknown[] }
    expect(truth.transactions).toHaveLength(1)
    const history = await page.getByRole('list', { name: 'Status history', exact: true }).innerText()
    expect(history).toMatch(/unknown/)
    expect(history).toMatch(/reconciled/)
    await shot(page, 'timeout-reconciled')

    await nav(page, 'Journal')
    await page
      .getByRole('status')
      .filter({ hasText: /\d+ entries/ })
      .waitFor()
    const repays = page.getByRole('table').filter({ hasText: 'repay' })
    expect(await repays.innerText()).toMatch(/unknown → reconciled|reconciled/)
  })
})
