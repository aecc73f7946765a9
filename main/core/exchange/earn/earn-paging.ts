import { DeskError } from '../../errors/desk-error'
import type { EarnCursor, EarnPage } from '../../wire/earn'
import { EarnError } from './earn-http'

/** Page size for walking a paged read to its end (the pool's maximum). */
export const EARN_PAGE_LIMIT = 200
const MAX_PAGES = 10_000

/** The body of one paged read (the account, an optional asset, cursor and page size). */
export function pageBody(user: string, q: { assetId?: number; beforeId?: EarnCursor; limit?: number }): Record<string, unknown> {
  const b: Record<string, unknown> = { user_address: user }
  if (q.assetId !== undefined) b.asset_id = q.assetId
  if (q.beforeId !== undefined) b.before_id = q.beforeId
  if (q.limit !== undefined) {
    if (!Number.isInteger(q.limit) || q.limit < 1 || q.limit > EARN_PAGE_LIMIT)
      throw new DeskError('InvalidQuery', `limit must be 1..${EARN_PAGE_LIMIT}`)
    b.limit = q.limit
  }
  return b
}

/** Follows `next_before_id` until it is null; a repeated cursor is a pool bug, reported, not looped on. */
export async function walk<T>(page: (beforeId: EarnCursor | undefined) => Promise<EarnPage<T>>): Promise<T[]> {
  const out: T[] = []
  const seen = new Set<string>()
  let cursor: EarnCursor | undefined
  for (let i = 0; i < MAX_PAGES; i++) {
    const p = await page(cursor)
    out.push(...p.items)
    if (p.next_before_id === null) return out
    const key = String(p.next_before_id)
    if (seen.has(key)) throw new EarnError('EarnMalformedResponse', `the earn pool repeated the paging cursor ${key}`, { cursor: key })
    seen.add(key)
    cursor = p.next_before_id
  }
  throw new EarnError('EarnMalformedResponse', `paging did not end after ${MAX_PAGES} pages`)
}
