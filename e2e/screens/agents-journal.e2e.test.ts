import { readFileSync } from 'node:fs'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { devOwner } from '../../sandbox/scenario/dev-keys'
import { openDesk, type DeskSession } from '../harness'
import { approveUntil, choose, firstRun, nav, shot } from './helpers'

// Scenario: owner 0 has agents in slots 0 and 2.
const owner = new RegExp(devOwner(0).address, 'i')

describe('agents and journal', () => {
  let desk: DeskSession
  beforeAll(async () => {
    desk = await openDesk()
    await firstRun(desk.page)
  })
  afterAll(async () => {
    await desk?.close()
  })

  it('rotates an agent in one click and shows each step done', async () => {
    const { page } = desk
    await nav(page, 'Agents')
    await choose(page, 'Owner', owner)
    const slots = page.getByRole('table', { name: 'Agent slots', exact: true })
    await slots.getByRole('button', { name: 'Rotate agent in slot 0', exact: true }).waitFor()
    const before = await slots.locator('tbody tr').first().innerText()
    await slots.getByRole('button', { name: 'Rotate agent in slot 0', exact: true }).click()
    const rotation = page.getByRole('region', { name: 'Rotation of slot 0', exact: true })
    // A gap-free rotation signs twice (approve the new agent, then revoke the old slot).
    const approved = await approveUntil(page, rotation.getByText('Retire the old key from the vault'))
    expect(approved.length).toBeGreaterThanOrEqual(1)
    const steps = await rotation.getByTestId('rotation-step-status').allInnerTexts()
    expect(steps.length).toBeGreaterThanOrEqual(4)
    expect(steps.every((s) => s === 'done' || s === 'skipped')).toBe(true)
    // The new key took a spare slot; the old slot 0 was revoked and its key retired.
    await expect.poll(() => slots.locator('tbody tr').first().innerText()).not.toBe(before)
    expect(await slots.innerText()).toMatch(/yes/)
    await shot(page, 'agents')
  })

  it('lists the submissions and exports the journal as CSV and JSON', async () => {
    const { page } = desk
    await nav(page, 'Journal')
    await page
      .getByRole('status')
      .filter({ hasText: /\d+ entries/ })
      .waitFor()
    expect(await page.locator('main').innerText()).toMatch(/approveAgent|approve/i)
    await shot(page, 'journal')
    const [csv] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Export CSV', exact: true }).click()])
    expect(csv.suggestedFilename()).toMatch(/\.csv$/)
    const csvText = readFileSync((await csv.path())!, 'utf8')
    expect(csvText.split('\n')[0]).toMatch(/state/)
    expect(csvText).toMatch(/0x[0-9a-f]{32}/)
    const [json] = await Promise.all([
      page.waitForEvent('download'),
      page.getByRole('button', { name: 'Export JSON', exact: true }).click(),
    ])
    expect(json.suggestedFilename()).toMatch(/\.json$/)
    const parsed = JSON.parse(readFileSync((await json.path())!, 'utf8')) as unknown
    expect(JSON.stringify(parsed)).toMatch(/0x[0-9a-f]{32}/)
  })
})
