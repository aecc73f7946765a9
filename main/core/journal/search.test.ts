import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import Database from 'better-sqlite3'
import { afterEach, describe, expect, it } from 'vitest'
import { openJournalFile, type Journal, type NewSubmission } from './index'
import { MIGRATIONS } from './migrations'

const A = '0x1111111111111111111111111111111111111111'
const CLOID = '0x' + 'cd'.repeat(16)
const open: Journal[] = []
const dirs: string[] = []
afterEach(() => {
  for (const j of open.splice(0)) j.closeNow()
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true })
})
function sub(over: Partial<NewSubmission> = {}): NewSubmission {
  return {
    channel: 'trade',
    key: CLOID,
    network: 'sandbox',
    account: A,
    signer: A,
    actionType: 'order',
    summary: 'bid 1 @ 100 limit/gtc market 1',
    nonce: '1700000000000',
    body: '{}',
    ...over,
  }
}
const placed = (oid: string) =>
  JSON.stringify({
    submission_status: 'accepted',
    tx_hash: '0xfeedbeef',
    response: { type: 'order', status: { open: { oid: Number(oid), cloid: CLOID } } },
  })

describe('journal search (q)', () => {
  it('finds a placed order by its oid (from the answer), its cloid, its tx hash and a word of its summary', () => {
    const j = openJournalFile(':memory:')
    open.push(j)
    const s = j.record(sub())
    j.update(s.id, { state: 'sent' })
    j.update(s.id, { state: 'accepted', txHash: '0xfeedbeef', response: placed('4242') })
    j.record(sub({ key: '0x' + 'ef'.repeat(16), nonce: '1700000000001', actionType: 'settle', summary: 'settle 1 BTC' }))
    expect(j.get(s.id)!.oids).toEqual(['4242'])
    expect(j.list({ q: '4242' }).map((x) => x.id)).toEqual([s.id])
    expect(j.list({ q: '424' })).toEqual([]) // an oid matches whole, not a prefix of another
    expect(j.list({ q: CLOID.slice(0, 12).toUpperCase() }).map((x) => x.id)).toEqual([s.id])
    expect(j.list({ q: 'FEEDBEEF' }).map((x) => x.id)).toEqual([s.id])
    expect(j.list({ q: 'settle' })).toHaveLength(1)
    expect(j.list({ q: '1700000000001' })).toHaveLength(1) // a nonce, whole
    expect(j.list({ q: '4' })).toEqual([]) // digits are an id, never a substring of a hash
    expect(j.list({ q: A.slice(0, 10) })).toHaveLength(2) // by account address
    expect(j.list({ q: '%' })).toEqual([]) // LIKE wildcards are literal
  })

  it('keeps oids learned by reconciliation evidence and the earlier answer', () => {
    const j = openJournalFile(':memory:')
    open.push(j)
    const s = j.record(sub())
    j.update(s.id, { state: 'sent' })
    j.update(s.id, { state: 'unknown', response: JSON.stringify({ submission_status: 'timeout' }) })
    j.update(s.id, {
      state: 'reconciled',
      finalStatus: 'open',
      evidence: JSON.stringify({ orderStatus: { found: true, oid: '77', status: 'open' } }),
    })
    expect(j.list({ q: '77' }).map((x) => x.id)).toEqual([s.id])
  })

  it('fills the oids of rows written before the migration from their stored answer', () => {
    const d = mkdtempSync(join(tmpdir(), 'journal-oids-'))
    dirs.push(d)
    const file = join(d, 'j.sqlite')
    const old = new Database(file)
    for (let i = 0; i < 4; i++) old.exec(MIGRATIONS[i]!)
    old.pragma('user_version = 4')
    old
      .prepare(
        `INSERT INTO submissions (id, channel, key, network, account, signer, action_type, summary, nonce, body, state, response, created_at, updated_at)
      VALUES (3, 'trade', ?, 'sandbox', ?, ?, 'order', 'old order', '5', '{}', 'accepted', ?, 1, 1)`,
      )
      .run(CLOID, A, A, placed('9001'))
    old.close()
    const j = openJournalFile(file)
    open.push(j)
    expect(j.get(3)!.oids).toEqual(['9001'])
    expect(j.list({ q: '9001' }).map((x) => x.id)).toEqual([3])
  })
})
