/**
 * The top bar and toasts on the default sandbox setup, in Chromium at 1280 px (issue 24, item
 * 4): the bar stays on one line with every control inside the window; the stream indicator warns
 * in words when strict limits are off on the sandbox and the desk holds more connections than the
 * 1 per IP the service counts (counted, not yet refused); toasts never cover the open notifications drawer.
 */
import type { Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { NotificationEvent, StreamStatus } from '../../main/contract/types'
import { openDesk, type DeskSession } from '../harness'
import { firstRun } from './helpers'

type Box = { x: number; y: number; width: number; height: number }
const overlaps = (a: Box, b: Box) => a.x < b.x + b.width && b.x < a.x + a.width && a.y < b.y + b.height && b.y < a.y + a.height

describe('top bar and toasts at 1280 px on the default setup', () => {
  let desk: DeskSession
  let page: Page
  beforeAll(async () => {
    desk = await openDesk()
    page = desk.page
    await page.setViewportSize({ width: 1280, height: 800 })
    await firstRun(page)
  })
  afterAll(async () => {
    await desk?.close()
  })

  it('keeps the top bar on one line, every control inside the window', async () => {
    const bar = page.locator('.topbar .bar')
    const box = (await bar.boundingBox())!
    // one line of small buttons: about 40 px; a second line would double it
    expect(box.height).toBeLessThan(50)
    const links = page.getByRole('navigation', { name: 'Main', exact: true }).getByRole('link')
    const n = await links.count()
    expect(n).toBe(11) // Approvals and Team included (team mode)
    const navBox = (await page.getByRole('navigation', { name: 'Main', exact: true }).boundingBox())!
    for (let i = 0; i < n; i++) {
      const b = (await links.nth(i).boundingBox())!
      const name = await links.nth(i).innerText()
      expect(b.height, `${name} wraps`).toBeLessThan(40)
      // Every screen's link is in view, on the one row of links (none scrolled or clipped away).
      expect(b.x + b.width, `${name} is cut off`).toBeLessThanOrEqual(1280)
      expect(b.y + b.height, `${name} is on a second row`).toBeLessThanOrEqual(navBox.y + 40)
    }
    for (const name of ['Lock the vault', 'Halt trading']) {
      const b = (await page.getByRole('button', { name, exact: true }).boundingBox())!
      expect(b.x + b.width).toBeLessThanOrEqual(1280)
    }
    const notes = (await page.getByRole('button', { name: /^Notifications, / }).boundingBox())!
    await page.screenshot({ path: '.tmp/topbar-1280.png', clip: { x: 0, y: 0, width: 1280, height: 120 } })
    expect(notes.x + notes.width).toBeLessThanOrEqual(1280)
  })

  it('the stream indicator says plainly when strict limits are off on the sandbox and the desk holds more sockets than the service counts', async () => {
    const r = await desk.core.dispatch('stream.status', {}, { host: 'test' })
    const st = (r as { ok: true; value: StreamStatus }).value
    // the browser suites run the sandbox with strict limits off: one socket per 10 subscriptions
    expect(st.strict).toBe(false)
    expect(st.connections).toBeGreaterThan(st.connectionLimit)
    const indicator = page.getByRole('button', { name: /: live stream connected, / })
    await expect.poll(async () => (await indicator.textContent())?.replace(/\s+/g, ' ').trim()).toBe('⚠ Limits off')
    expect(await indicator.getAttribute('class')).toContain('warn')
    const b = (await indicator.boundingBox())!
    expect(b.height, 'the indicator wraps').toBeLessThan(40)
    await indicator.click()
    await page.getByText(/^Strict limits off on this sandbox: \d+ connections, the service counts 1 — not enforced yet; /).waitFor()
    expect(await page.getByText(/real networks always run strict/).count()).toBe(1)
    await page.keyboard.press('Escape')
    await indicator.click() // close the popover
  })

  it('toasts step aside while the notifications drawer is open, and come back when it closes', async () => {
    for (let i = 0; i < 3; i++) {
      const e: NotificationEvent = {
        id: `t-${i}`,
        kind: 'rejection',
        level: 'error',
        title: `Test rejection ${i}`,
        message: 'An error stays until dismissed, so it would sit over the drawer.',
        atMs: Date.now(),
      }
      desk.core.events.emit('notify', e)
    }
    const toasts = page.getByTestId('toasts')
    await page.getByText('Test rejection 2', { exact: true }).first().waitFor()
    await page.getByRole('button', { name: /^Notifications, / }).click()
    const drawer = page.getByRole('dialog', { name: 'Notifications', exact: true })
    await drawer.waitFor()
    await page.waitForTimeout(400) // the drawer's slide-in
    const d = (await drawer.boundingBox())!
    const visible = await toasts
      .locator('.toast')
      .evaluateAll((els) =>
        els.filter((el) => (el as HTMLElement).offsetParent !== null).map((el) => el.getBoundingClientRect().toJSON() as Box),
      )
    for (const t of visible) expect(overlaps(t, d), `a toast at ${JSON.stringify(t)} covers the drawer at ${JSON.stringify(d)}`).toBe(false)
    // whatever is at the drawer's bottom-right corner belongs to the drawer, not to a toast
    const owner = await page.evaluate(
      ([x, y]) => document.elementFromPoint(x!, y!)?.closest('[role="dialog"]')?.getAttribute('aria-label') ?? null,
      [d.x + d.width - 30, d.y + d.height - 30],
    )
    expect(owner).toBe('Notifications')
    await drawer.getByRole('button', { name: 'Close notifications', exact: true }).click()
    await expect.poll(() => toasts.isVisible()).toBe(true)
  })
})
