import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Page } from 'playwright-core'
import { devOwner } from '../../sandbox/scenario/dev-keys'
import { openDesk, type DeskSession } from '../harness'
import { firstRun, openTab } from './helpers'

/**
 * The console left running on a moving market (marks walk, the market maker trades) for
 * `SOAK_MS`, with every live screen open side by side in its own tab: overview, a balance
 * account's page, a credit account's page, credit health, earn, agents, the journal, and the
 * stream status panel. Every few seconds each screen is read whole (no row or cell is left out):
 * none shows an unknown or stale value, no age grows past the desk's 30 s data limit, and the
 * stream holds the fewest sockets its subscriptions need.
 */
const SOAK_MS = Number(process.env.DESK_SOAK_MS ?? 120_000)
const SAMPLE_MS = 5_000
/** Largest age accepted on screen: the desk's 30 s data limit. */
const MAX_AGE_S = 30
const owner = (i: number) => devOwner(i).address.toLowerCase()

function agesInSeconds(text: string): number[] {
  const out: number[] = []
  for (const m of text.matchAll(/(\d+)([smh])(?: (\d+)s)? ago/g))
    out.push(Number(m[1]) * (m[2] === 'h' ? 3600 : m[2] === 'm' ? 60 : 1) + Number(m[3] ?? 0))
  return out
}

describe('soak: every live screen stays known and fresh on a moving market', () => {
  let desk: DeskSession
  const tabs: Page[] = []
  beforeAll(async () => {
    desk = await openDesk({ sandbox: { markStepBps: 5, botIntervalMs: 400 } })
    await firstRun(desk.page)
  }, 60_000)
  afterAll(async () => {
    for (const t of tabs) await t.close().catch(() => {})
    await desk?.close()
  })

  async function tab(route: string): Promise<Page> {
    const p = await openTab(desk, route)
    tabs.push(p)
    return p
  }

  it(
    `shows no unknown or stale value on any screen for ${SOAK_MS / 1000} s, with totals that move`,
    async () => {
      const { page } = desk
      const total = page.getByTestId('overview-total-usd')
      await expect.poll(() => total.innerText(), { timeout: 20_000 }).toMatch(/^\$[0-9,]+\.\d\d/)
      const screens: [string, Page][] = [
        ['overview', page],
        ['balance account page', await tab(`/account/${owner(0)}`)],
        ['credit account page', await tab(`/account/${owner(3)}`)],
        ['credit health', await tab(`/credit/${owner(4)}`)],
        ['earn', await tab(`/earn/${owner(1)}`)],
        ['agents', await tab(`/agents/${owner(0)}`)],
        ['journal', await tab('/journal')],
      ]
      // Each screen has drawn its data before the clock starts.
      await screens[1]![1].getByRole('table', { name: 'Balances', exact: true }).locator('tbody tr').first().waitFor({ timeout: 20_000 })
      await screens[2]![1].getByRole('table', { name: 'Credit positions', exact: true }).waitFor({ timeout: 20_000 })
      await screens[3]![1].getByRole('table', { name: 'Asset contributions', exact: true }).waitFor({ timeout: 20_000 })
      await screens[4]![1].getByRole('table', { name: 'Earn balances', exact: true }).waitFor({ timeout: 20_000 })
      await screens[5]![1].getByRole('table', { name: 'Agent slots', exact: true }).locator('tbody tr').first().waitFor({ timeout: 20_000 })
      await page.waitForTimeout(3_000)

      const seenTotals = new Set<string>()
      const seenMarks = new Set<string>()
      const problems: string[] = []
      const until = Date.now() + SOAK_MS
      let samples = 0
      // The whole span and every sample: a loaded machine makes a pass over six screens slower,
      // which must not shorten the sampling.
      while (Date.now() < until || samples < SOAK_MS / SAMPLE_MS) {
        await page.waitForTimeout(SAMPLE_MS)
        samples++
        const at = `${Math.round((SOAK_MS - (until - Date.now())) / 1000)} s`
        for (const [where, p] of screens) {
          // The whole screen as the operator reads it: the top bar and the page, every row (the
          // options of pickers and filters are choices, not values: "unknown" there is a filter).
          const text = await p.evaluate(() => {
            let t = document.body.innerText
            for (const s of document.querySelectorAll('select')) t = t.replace(s.innerText, '')
            return t
          })
          // When something happened (a fill, an order placed, a write created) grows old by right;
          // only the age of data is judged. Event times are marked as such on screen.
          const eventTimes = await p.evaluate(() =>
            [...document.querySelectorAll('[data-event-time]')].map((e) => (e as HTMLElement).innerText),
          )
          const dataText = eventTimes.reduce((t, e) => t.replace(e, ''), text)
          const bad = /[^\n]*\b(unknown|stale|not read yet)\b[^\n]*/i.exec(text)?.[0]
          if (bad) problems.push(`${at}: ${where} shows "${bad.trim()}"`)
          const old = agesInSeconds(dataText).filter((s) => s > MAX_AGE_S)
          if (old.length) problems.push(`${at}: ${where} has ages ${old.join(', ')} s`)
          // The stream panel in the top bar: live, and its sockets against the counted limit.
          const stream = await p.getByRole('button', { name: /live stream (connected|disconnected)/ }).getAttribute('aria-label')
          if (!stream?.includes('live stream connected')) problems.push(`${at}: ${where} stream panel reads "${stream}"`)
        }
        const grand = await total.innerText()
        if (!/^\$[0-9,]+\.\d\d/.test(grand)) problems.push(`${at}: total USD is "${grand}"`)
        seenTotals.add(grand)
        seenMarks.add(await screens[3]![1].getByRole('table', { name: 'Asset contributions', exact: true }).innerText())
        // The fewest sockets the subscriptions need (10 each), as the panel counts them.
        const st = await desk.core.dispatch('stream.status', {}, { host: 'test' })
        if (!st.ok) problems.push(`${at}: stream.status ${st.error.code}`)
        else {
          const s = st.value as { connections: number; subscriptions: number; neededConnections: number }
          if (s.connections !== Math.ceil(s.subscriptions / 10) || s.connections !== s.neededConnections)
            problems.push(`${at}: ${s.connections} sockets for ${s.subscriptions} subscriptions (${s.neededConnections} needed)`)
        }
      }
      expect(problems).toEqual([])
      // Marks moved and the market maker traded: totals and the credit page were pushed with new values, unasked.
      expect(seenTotals.size).toBeGreaterThan(1)
      expect(seenMarks.size).toBeGreaterThan(1)
    },
    SOAK_MS + 120_000,
  )
})
