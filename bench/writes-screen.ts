/**
 * What the writes bench reads off the screen, and its one read of the exchange beside the desk.
 * A write counts as done when the page shows its result, not when the core journals it.
 */
import { request } from 'node:http'
import type { Page } from 'playwright-core'

/** The order ticket's result list (one leaf per order: `open oid 123`). */
export const ORDER_RESULT = 'ul[aria-label="Order result"]'
/** The submission status under the account page's open orders (the last cancel). */
export const CANCEL_STATUS = 'table[aria-label="Open orders"] >> status'

/** The text the page shows at `what` now ('' when absent). */
export function shownResult(page: Page, what: string): Promise<string> {
  return page.evaluate(find, what).then((r) => r?.text ?? '')
}

/**
 * Resolves to the wall clock at which the page showed at `what` a result other than `before` in
 * its accepted state: for the ticket a leaf with an oid, for a cancel the submission status
 * reading `accepted`. Polled every 5 ms in the page, and read there (the page's Date.now, the
 * same machine clock as this process): the time the result was in the page, not the time this
 * process, which also runs the core and the web host, got round to hearing of it.
 */
export async function shownNew(page: Page, what: string, before: string, timeoutMs: number): Promise<number> {
  const seen = await page.waitForFunction(
    ([w, b]) => {
      // (the same lookup as `find`, inlined: the page cannot call this module's functions)
      let el: Element | null
      let state: string
      if (w.endsWith(' >> status')) {
        const table = document.querySelector(w.slice(0, -' >> status'.length))
        el = table?.closest('.panel')?.querySelector('[aria-label="Submission status"]') ?? null
        state = el?.querySelector('[data-testid="submission-state"]')?.textContent?.trim() ?? ''
      } else {
        el = document.querySelector(w)
        state = /\boid \d+/.test(el?.textContent ?? '') ? 'accepted' : ''
      }
      return !!el && el.textContent !== b && state === 'accepted' ? Date.now() : false
    },
    [what, before] as const,
    { polling: 5, timeout: timeoutMs },
  )
  const at = (await seen.jsonValue()) as number
  await seen.dispose()
  return at
}

/** The halt's result table (one row per account). */
export const HALT_RESULT = 'table[aria-label="Halt result per account"]'

/** The wall clock, read in the page (see `shownNew`), at which an element matching `selector` was in it. Polled every 5 ms. */
export async function shownElement(page: Page, selector: string, timeoutMs: number): Promise<number> {
  const seen = await page.waitForFunction((sel) => (document.querySelector(sel) ? Date.now() : false), selector, {
    polling: 5,
    timeout: timeoutMs,
  })
  const at = (await seen.jsonValue()) as number
  await seen.dispose()
  return at
}

/** The wall clock, read in the page (see `shownNew`), at which no element matched `selector` any more. Polled every 5 ms. */
export async function goneAt(page: Page, selector: string, timeoutMs: number): Promise<number> {
  const seen = await page.waitForFunction((sel) => (document.querySelector(sel) ? false : Date.now()), selector, {
    polling: 5,
    timeout: timeoutMs,
  })
  const at = (await seen.jsonValue()) as number
  await seen.dispose()
  return at
}

function find(w: string): { text: string } | null {
  let el: Element | null
  if (w.endsWith(' >> status'))
    el =
      document.querySelector(w.slice(0, -' >> status'.length))?.closest('.panel')?.querySelector('[aria-label="Submission status"]') ?? null
  else el = document.querySelector(w)
  return el ? { text: el.textContent ?? '' } : null
}

/**
 * POSTs `body` to `url` from 127.0.0.2: the service rate-limits per peer, so the bench's own
 * look at the exchange (diagnosing a stuck order) never spends the desk's budget on 127.0.0.1.
 */
export function readAside(url: string, body: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const req = request(
      url,
      {
        method: 'POST',
        localAddress: '127.0.0.2',
        headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) },
      },
      (res) => {
        const chunks: Buffer[] = []
        res.on('data', (c: Buffer) => chunks.push(c))
        res.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')))
        res.on('error', reject)
      },
    )
    req.on('error', reject)
    req.end(body)
  })
}
