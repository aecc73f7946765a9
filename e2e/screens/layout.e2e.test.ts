/**
 * Layout as an operator sees it in Chromium at 1280×800 and 1440×900 (issue 31 §2-3): Overview
 * and Journal (after a few writes, so the journal has rows) scroll only down, never sideways; no
 * table header breaks inside a word ("Pendin/g"); a journal row's cells never run into each
 * other, Code and the counterparty are read whole; a toast never covers a table's header
 * cells (it sits in its own strip at the bottom, which the screen makes room for); axe is clean.
 */
import { readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import type { Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { NotificationEvent } from '../../main/contract/types'
import { devOwner } from '../../sandbox/scenario/dev-keys'
import { openDesk, type DeskSession } from '../harness'
import { PASSPHRASE, firstRun, nav } from './helpers'

type Box = { x: number; y: number; width: number; height: number }
const overlaps = (a: Box, b: Box) => a.x < b.x + b.width && b.x < a.x + a.width && a.y < b.y + b.height && b.y < a.y + a.height

const axePath = createRequire(import.meta.url).resolve('axe-core')
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

/** Elements that scroll sideways in the page: the document, and the screen's own scroll area. */
async function sidewaysScroll(page: Page): Promise<string[]> {
  return page.evaluate(() => {
    const out: string[] = []
    const doc = document.scrollingElement!
    if (doc.scrollWidth > doc.clientWidth) out.push(`document ${doc.scrollWidth} > ${doc.clientWidth}`)
    for (const el of document.querySelectorAll<HTMLElement>('.screen-scroll, main')) {
      if (el.scrollWidth > el.clientWidth) out.push(`${el.tagName.toLowerCase()} ${el.scrollWidth} > ${el.clientWidth}`)
    }
    return out
  })
}

/**
 * Header cells whose text does not fit: a word laid out on two lines (broken inside it:
 * "Pendin/g"), or text running out of its cell.
 */
async function brokenHeaders(page: Page): Promise<string[]> {
  return page.evaluate(() => {
    const out: string[] = []
    for (const th of document.querySelectorAll<HTMLElement>('main th')) {
      if (th.offsetParent === null) continue
      const text = (th.innerText || '').trim()
      if (!text) continue
      const walker = document.createTreeWalker(th, NodeFilter.SHOW_TEXT)
      for (let node = walker.nextNode(); node; node = walker.nextNode()) {
        for (const m of (node.textContent ?? '').matchAll(/\S+/g)) {
          const range = document.createRange()
          range.setStart(node, m.index)
          range.setEnd(node, m.index + m[0].length)
          const tops = new Set([...range.getClientRects()].filter((r) => r.width > 0).map((r) => Math.round(r.top)))
          if (tops.size > 1) out.push(`"${text}": "${m[0]}" is broken across ${tops.size} lines`)
        }
      }
      if (th.scrollWidth > th.clientWidth + 1) out.push(`"${text}" overflows its cell`)
    }
    return out
  })
}

async function toastOverHeaders(page: Page): Promise<string[]> {
  return page.evaluate(() => {
    const out: string[] = []
    const toasts = [...document.querySelectorAll<HTMLElement>('[data-testid="toasts"] .toast')].filter((t) => t.offsetParent !== null)
    for (const th of document.querySelectorAll<HTMLElement>('main th')) {
      if (th.offsetParent === null) continue
      const b = th.getBoundingClientRect()
      for (const t of toasts) {
        const r = t.getBoundingClientRect()
        if (r.left < b.right && b.left < r.right && r.top < b.bottom && b.top < r.bottom)
          out.push(`a toast covers the header "${th.innerText.trim()}"`)
      }
    }
    return out
  })
}

describe.each([
  { width: 1280, height: 800 },
  { width: 1440, height: 900 },
])('layout at $width×$height', (size) => {
  let desk: DeskSession
  let page: Page
  beforeAll(async () => {
    desk = await openDesk()
    page = desk.page
    await page.setViewportSize(size)
    await firstRun(page)
    const stopConfirm = desk.desk.autoConfirm(PASSPHRASE)
    const write = async (channel: string, args: unknown) => {
      const r = await desk.core.dispatch(channel, args, { host: 'test' })
      if (!r.ok) throw new Error(`${channel}: ${r.error.code} ${r.error.message}`)
    }
    const owner = (i: number) => devOwner(i).address
    // A few writes of different kinds: a settle (a counterparty), a resting order, a cancel-all.
    await write('settle.submit', { creditAccount: owner(3), cashAccount: owner(0), assetId: 3, amount: '0.05' })
    const p = await desk.core.dispatch('orders.preview', { account: owner(0), marketId: '2', side: 'bid' }, { host: 'test' })
    const bid = Number((p as { ok: true; value: { book: { bid: { price: string } | null } } }).value.book.bid?.price ?? '3000')
    await write('orders.place', {
      account: owner(0),
      marketId: '2',
      side: 'bid',
      orderType: 'limit',
      tif: 'gtc',
      price: String(Math.floor(bid * 0.8)),
      quantity: '0.5',
    })
    await write('orders.cancelAll', { account: owner(0), marketId: '2' })
    stopConfirm()
  })
  afterAll(async () => {
    await desk?.close()
  })

  it('Overview: no sideways scroll, no header broken inside a word, axe clean', async () => {
    await nav(page, 'Overview')
    await page.getByTestId('overview-table').locator('tbody tr').first().waitFor()
    await page.waitForTimeout(500)
    await page.screenshot({ path: `.tmp/layout-overview-${size.width}.png` })
    expect(await sidewaysScroll(page)).toEqual([])
    expect(await brokenHeaders(page)).toEqual([])
    // the accounts table fits the window: no column out of sight to the right
    const region = page.getByRole('region', { name: 'Accounts table', exact: true })
    const fits = await region.evaluate((el) => el.scrollWidth <= el.clientWidth)
    expect(fits, 'the accounts table scrolls sideways').toBe(true)
    expect(await violations(page)).toEqual([])
  })

  it('Journal: cells do not run into each other, Code and the counterparty are read whole, axe clean', async () => {
    await nav(page, 'Journal')
    const table = page.locator('[aria-label="Submissions"]')
    await expect.poll(() => table.locator('tbody tr').count(), { timeout: 15_000 }).toBeGreaterThanOrEqual(3)
    await page.waitForTimeout(500)
    await page.screenshot({ path: `.tmp/layout-journal-${size.width}.png` })
    expect(await sidewaysScroll(page)).toEqual([])
    expect(await brokenHeaders(page)).toEqual([])
    const problems = await table.evaluate((root) => {
      const out: string[] = []
      const heads = [...root.querySelectorAll<HTMLElement>('thead th')].map((th) => th.innerText.trim())
      for (const tr of root.querySelectorAll<HTMLElement>('tbody tr')) {
        const cells = [...tr.querySelectorAll<HTMLElement>('td')]
        cells.forEach((td, i) => {
          const name = heads[i] ?? String(i)
          // a cell's content stays inside the cell (nothing painted over its neighbour)
          const cell = td.getBoundingClientRect()
          // (content inside a box that clips it, such as an id's ellipsis, is not painted over the next cell)
          const clipped = (el: HTMLElement) => {
            for (let p: HTMLElement | null = el.parentElement; p && p !== td.parentElement; p = p.parentElement)
              if (getComputedStyle(p).overflowX !== 'visible') return true
            return false
          }
          for (const child of td.querySelectorAll<HTMLElement>('*')) {
            const c = child.getBoundingClientRect()
            if (c.width === 0 || clipped(child)) continue
            if (c.right > cell.right + 1 || c.left < cell.left - 1) {
              out.push(`${name}: "${child.innerText?.slice(0, 30)}" runs out of its cell`)
              break
            }
          }
          const next = cells[i + 1]
          if (next) {
            const n = next.getBoundingClientRect()
            if (cell.right > n.left + 1) out.push(`${name} overlaps ${heads[i + 1]}`)
          }
          if ((name === 'Code' || name === 'Counterparty' || name === 'Created') && td.scrollWidth > td.clientWidth + 1)
            out.push(`${name} is cut: "${td.innerText}"`)
          if (name === 'Code' && /…$/.test(td.innerText.trim())) out.push(`Code is cut: "${td.innerText}"`)
          // a code is read whole: never broken inside a word ("cancelle/d")
          if (name === 'Code' || name === 'Created') {
            const walker = document.createTreeWalker(td, NodeFilter.SHOW_TEXT)
            for (let node = walker.nextNode(); node; node = walker.nextNode())
              for (const m of (node.textContent ?? '').matchAll(/[^\s—]+/g)) {
                const range = document.createRange()
                range.setStart(node, m.index)
                range.setEnd(node, m.index + m[0].length)
                const tops = new Set([...range.getClientRects()].filter((r) => r.width > 0).map((r) => Math.round(r.top)))
                if (tops.size > 1) out.push(`${name}: "${m[0]}" is broken inside the word`)
              }
          }
        })
      }
      return out
    })
    expect(problems).toEqual([])
    // the settle's counterparty (the cash account) has a column of its own, by name
    const heads = await table.locator('thead th').allInnerTexts()
    expect(heads.map((h) => h.trim())).toContain('Counterparty')
    expect(await violations(page)).toEqual([])
  })

  it('a toast never covers a table header: the screen makes room for it', async () => {
    for (const screen of ['Overview', 'Journal'] as const) {
      await nav(page, screen)
      await page.locator('main th').first().waitFor()
      for (let i = 0; i < 3; i++) {
        const e: NotificationEvent = {
          id: `layout-${screen}-${i}`,
          kind: 'rejection',
          level: 'error',
          title: `Layout check ${screen} ${i}`,
          message: 'An error stays until dismissed: it must not sit over the table.',
          atMs: Date.now(),
        }
        desk.core.events.emit('notify', e)
      }
      await page.getByText(`Layout check ${screen} 2`, { exact: true }).waitFor()
      await page.waitForTimeout(300)
      await page.screenshot({ path: `.tmp/layout-toasts-${screen}-${size.width}.png` })
      expect(await toastOverHeaders(page)).toEqual([])
      // nothing of the screen sits under a toast: the toasts' strip is outside the screen's area
      const main = (await page.locator('main').boundingBox())!
      const scroll = await page.evaluate(() => {
        const el = document.querySelector('.screen-scroll')
        return el ? (el.getBoundingClientRect().toJSON() as Box) : null
      })
      for (const t of await page
        .getByTestId('toasts')
        .locator('.toast')
        .evaluateAll((els) => els.map((el) => el.getBoundingClientRect().toJSON() as Box)))
        expect(overlaps(t, scroll ?? main), `a toast at ${JSON.stringify(t)} covers the screen`).toBe(false)
      expect(await sidewaysScroll(page)).toEqual([])
      expect(await violations(page)).toEqual([])
      const dismiss = page.getByRole('button', { name: /^Dismiss Layout check / })
      while ((await dismiss.count()) > 0) await dismiss.first().click()
    }
  })
})
