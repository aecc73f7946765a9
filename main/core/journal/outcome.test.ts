import Database from 'better-sqlite3'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { openJournalFile, outcomeOf, type Journal, type NewSubmission } from './index'
import { MIGRATIONS } from './migrations'

const A = '0x1111111111111111111111111111111111111111'
const CLOID = '0x' + 'ab'.repeat(16)
let n = 1700000000000
function sub(over: Partial<NewSubmission> = {}): NewSubmission {
  n++
  return {
    channel: 'trade',
    key: CLOID,
    network: 'sandbox',
    account: A,
    signer: A,
    actionType: 'settle',
    summary: 's',
    nonce: String(n),
    body: '{}',
    ...over,
  }
}
const open: Journal[] = []
const dirs: string[] = []
afterEach(() => {
  for (const j of open.splice(0)) j.closeNow()
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true })
})
function mem(): Journal {
  const j = openJournalFile(':memory:')
  open.push(j)
  return j
}

describe('journal outcomes (failed, unresolved, acknowledgement)', () => {
  it('migrates a schema-1 journal in place: rows, ids and history kept, new states allowed', () => {
    const d = mkdtempSync(join(tmpdir(), 'journal-mig-'))
    dirs.push(d)
    const file = join(d, 'j.sqlite')
    const old = new Database(file)
    old.exec(MIGRATIONS[0]!)
    old.pragma('user_version = 1')
    old
      .prepare(
        `INSERT INTO submissions (id, channel, key, network, account, signer, action_type, summary, nonce, body, state, created_at, updated_at)
      VALUES (7, 'trade', ?, 'sandbox', ?, ?, 'settle', 'old one', '5', '{}', 'unknown', 1, 1)`,
      )
      .run(CLOID, A, A)
    old.prepare(`INSERT INTO submission_events (submission_id, at, state) VALUES (7, 1, 'signed')`).run()
    old.close()
    const j = openJournalFile(file)
    open.push(j)
    const s = j.get(7)!
    expect(s).toMatchObject({ state: 'unknown', summary: 'old one', submitHeight: null, evidence: null, acknowledgedAt: null })
    expect(j.history(7).map((h) => h.state)).toEqual(['signed'])
    const u = j.update(7, { state: 'unresolved', evidence: '{"x":1}', advice: 'check fills' })
    expect(u).toMatchObject({ state: 'unresolved', evidence: '{"x":1}', advice: 'check fills' })
    // New ids continue after the migrated ones.
    expect(j.record(sub({ nonce: '9' })).id).toBeGreaterThan(7)
  })

  it('records the submit height and journals an acknowledgement once, only for unresolved entries', () => {
    const j = mem()
    const s = j.record(sub({ submitHeight: '1234' }))
    expect(s.submitHeight).toBe('1234')
    expect(() => j.acknowledgeUnresolved(s.id, 'checked')).toThrow(/not unresolved/)
    j.update(s.id, { state: 'sent' })
    j.update(s.id, { state: 'unresolved', advice: 'look at balances' })
    expect(() => j.acknowledgeUnresolved(s.id, '  ')).toThrow(/needs a note/)
    expect(j.reuseBlocker('sandbox', CLOID)?.reason).toBe('unacknowledged')
    expect(j.unacknowledged('sandbox').map((x) => x.id)).toEqual([s.id])
    const a = j.acknowledgeUnresolved(s.id, 'balances show it did not execute')
    expect(a.acknowledgedAt).not.toBeNull()
    expect(a.ackNote).toBe('balances show it did not execute')
    expect(j.history(s.id).at(-1)?.note).toMatch(/acknowledged by the operator: balances/)
    expect(() => j.acknowledgeUnresolved(s.id, 'again')).toThrow(/already acknowledged/)
    expect(j.reuseBlocker('sandbox', CLOID)).toBeNull()
    expect(j.unacknowledged('sandbox')).toEqual([])
  })

  it('blocks re-use of a cloid held by an in-flight, executed or failed write; frees it once proven never executed', () => {
    const j = mem()
    const s = j.record(sub())
    expect(j.reuseBlocker('sandbox', CLOID)?.reason).toBe('inflight')
    j.update(s.id, { state: 'sent' })
    j.update(s.id, { state: 'failed', finalStatus: 'failed', code: 'invalidsettle', advice: 'x' })
    expect(outcomeOf(j.get(s.id)!)).toMatchObject({ kind: 'failed', code: 'invalidsettle' })
    expect(j.reuseBlocker('sandbox', CLOID)?.reason).toBe('executed')
    const k2 = '0x' + 'cd'.repeat(16)
    const t = j.record(sub({ key: k2 }))
    j.update(t.id, { state: 'sent' })
    j.update(t.id, { state: 'unknown' })
    j.update(t.id, { state: 'reconciled', finalStatus: 'notexecuted' })
    expect(outcomeOf(j.get(t.id)!).kind).toBe('notexecuted')
    expect(j.reuseBlocker('sandbox', k2)).toBeNull()
    const k3 = '0x' + 'ef'.repeat(16)
    const r = j.record(sub({ key: k3 }))
    j.update(r.id, { state: 'sent' })
    j.update(r.id, { state: 'accepted', finalStatus: 'accepted' })
    expect(j.reuseBlocker('sandbox', k3)?.reason).toBe('executed')
  })
})
