import { spawn } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import Database from 'better-sqlite3'
import { afterEach, describe, expect, it } from 'vitest'
import { openJournal, openJournalFile, type Journal, type NewSubmission } from './index'

const A = '0x1111111111111111111111111111111111111111'
const B = '0x2222222222222222222222222222222222222222'
const AGENT = '0x3333333333333333333333333333333333333333'

function sub(over: Partial<NewSubmission> = {}): NewSubmission {
  return {
    channel: 'trade',
    key: '0x' + 'ab'.repeat(16),
    network: 'sandbox',
    account: A,
    signer: A,
    actionType: 'settle',
    summary: 'settle 1 BTC',
    nonce: '1700000000000',
    body: '{"action":{"type":"settle"},"nonce":"1700000000000","signature":"0x00"}',
    ...over,
  }
}

let dirs: string[] = []
let open: Journal[] = []
function tmp(): string {
  const d = mkdtempSync(join(tmpdir(), 'journal-test-'))
  dirs.push(d)
  return d
}
function mem(now?: () => number): Journal {
  const j = openJournalFile(':memory:', now ? { now } : {})
  open.push(j)
  return j
}

afterEach(() => {
  for (const j of open) j.closeNow()
  for (const d of dirs) rmSync(d, { recursive: true, force: true })
  dirs = []
  open = []
})

describe('journal database', () => {
  it('opens in WAL with synchronous=FULL and survives a reopen with its data', async () => {
    const dir = tmp()
    const j = openJournal(dir)
    const db = new Database(j.file, { readonly: true })
    expect(db.pragma('journal_mode', { simple: true })).toBe('wal')
    db.close()
    const s = j.record(sub())
    await j.close()
    const j2 = openJournal(dir)
    open.push(j2)
    expect(j2.get(s.id)?.body).toBe(sub().body)
    expect(j2.lastNonce('sandbox', A, 'envelope')).toBe(1700000000000n)
  })

  it('refuses a journal written by a newer schema', () => {
    const dir = tmp()
    openJournal(dir).closeNow()
    const db = new Database(join(dir, 'journal.sqlite'))
    db.pragma('user_version = 99')
    db.close()
    expect(() => openJournal(dir)).toThrowError(expect.objectContaining({ code: 'JournalTooNew' }))
  })

  it('writes after close fail with JournalClosed', () => {
    const j = openJournalFile(':memory:')
    j.closeNow()
    expect(() => j.record(sub())).toThrowError(expect.objectContaining({ code: 'JournalClosed' }))
  })

  it('close() waits for held submissions to finish writing', async () => {
    const j = openJournal(tmp())
    const release = j.hold()
    const s = j.record(sub())
    let closed = false
    const closing = j.close().then(() => (closed = true))
    await new Promise((r) => setTimeout(r, 10))
    expect(closed).toBe(false)
    j.update(s.id, { state: 'sent', attempt: true })
    release()
    await closing
    expect(closed).toBe(true)
  })
})

describe('submissions', () => {
  it('records the exact body, then each state change in the history', () => {
    let t = 1000
    const j = mem(() => t)
    const s = j.record(sub({ traceId: 'tr-1' }))
    expect(s.state).toBe('signed')
    expect(s.account).toBe(A)
    t = 1001
    j.update(s.id, { state: 'sent', attempt: true })
    t = 1002
    j.update(s.id, { state: 'unknown', code: 'NodeUnreachable', note: '504' })
    t = 1003
    const done = j.update(s.id, { state: 'reconciled', finalStatus: 'settle', txHash: '0xaa' })
    expect(done).toMatchObject({
      state: 'reconciled',
      finalStatus: 'settle',
      code: 'NodeUnreachable',
      txHash: '0xaa',
      attempts: 1,
      resolvedAt: 1003,
      traceId: 'tr-1',
    })
    expect(j.history(s.id).map((e) => [e.state, e.at])).toEqual([
      ['signed', 1000],
      ['sent', 1001],
      ['unknown', 1002],
      ['reconciled', 1003],
    ])
  })

  it('tells listeners about every committed change, and a throwing listener changes nothing', () => {
    const j = mem()
    const seen: string[] = []
    j.onChange(() => {
      throw new Error('listener bug')
    })
    const off = j.onChange((s) => seen.push(s.state))
    const s = j.record(sub())
    j.update(s.id, { state: 'sent' })
    off()
    j.update(s.id, { state: 'accepted' })
    expect(seen).toEqual(['signed', 'sent'])
    expect(j.get(s.id)!.state).toBe('accepted')
  })

  it('refuses impossible transitions (a final entry never becomes unresolved again)', () => {
    const j = mem()
    const s = j.record(sub())
    j.update(s.id, { state: 'sent' })
    j.update(s.id, { state: 'accepted' })
    expect(() => j.update(s.id, { state: 'sent' })).toThrowError(expect.objectContaining({ code: 'InvalidJournalTransition' }))
    expect(() => j.update(999, { state: 'sent' })).toThrowError(expect.objectContaining({ code: 'SubmissionNotFound' }))
  })

  it('claims the envelope nonce with the submission and refuses a reused or lower one', () => {
    const j = mem()
    j.record(sub({ nonce: '100' }))
    expect(() => j.record(sub({ nonce: '100' }))).toThrowError(expect.objectContaining({ code: 'NonceConflict' }))
    expect(() => j.record(sub({ nonce: '99' }))).toThrowError(expect.objectContaining({ code: 'NonceConflict' }))
    // The refused record left nothing behind.
    expect(j.count()).toBe(1)
    // Another signer has its own sequence.
    j.record(sub({ nonce: '50', signer: AGENT }))
    expect(j.lastNonce('sandbox', AGENT, 'envelope')).toBe(50n)
    // Same signer on another network too.
    j.record(sub({ nonce: '10', network: 'testnet' }))
    expect(j.lastNonce('sandbox', A, 'envelope')).toBe(100n)
  })

  it('claims a withdraw business nonce per account', () => {
    const j = mem()
    j.record(sub({ actionType: 'withdraw', nonce: '200', businessNonce: '500' }))
    expect(j.lastNonce('sandbox', A, 'withdraw')).toBe(500n)
    expect(() => j.record(sub({ actionType: 'withdraw', nonce: '201', businessNonce: '500' }))).toThrowError(
      expect.objectContaining({ code: 'NonceConflict', details: expect.objectContaining({ kind: 'withdraw' }) }),
    )
    // The envelope nonce 201 was not consumed by the failed transaction.
    expect(j.lastNonce('sandbox', A, 'envelope')).toBe(200n)
  })

  it('rejects a nonce that is not a u64 decimal string', () => {
    const j = mem()
    expect(() => j.record(sub({ nonce: '1e3' }))).toThrowError(expect.objectContaining({ code: 'InvalidNonce' }))
  })

  it('earn writes carry no envelope nonce and are found by operation id and type', () => {
    const j = mem()
    const op = `withdraw:${A.toLowerCase()}:7`
    j.record(sub({ channel: 'earn', key: op, nonce: null, actionType: 'createWithdrawal', businessNonce: '7' }))
    const claim = j.record(sub({ channel: 'earn', key: op, nonce: null, actionType: 'claimWithdrawal' }))
    expect(j.findByKey('sandbox', op, 'claimWithdrawal')?.id).toBe(claim.id)
    expect(j.findByKey('sandbox', op)?.id).toBe(claim.id)
    expect(j.findByKey('testnet', op)).toBeNull()
  })

  it('lists unresolved entries oldest first', () => {
    let t = 0
    const j = mem(() => ++t)
    const a = j.record(sub({ nonce: '1' }))
    const b = j.record(sub({ nonce: '2' }))
    const c = j.record(sub({ nonce: '3' }))
    j.update(a.id, { state: 'sent' })
    j.update(b.id, { state: 'sent' })
    j.update(b.id, { state: 'rejected', code: 'BadNonce' })
    j.update(c.id, { state: 'sent' })
    j.update(c.id, { state: 'unknown' })
    expect(j.unresolved().map((s) => s.id)).toEqual([a.id, c.id])
  })
})

describe('queries and export', () => {
  function seeded(): Journal {
    let t = 0
    const j = mem(() => (t += 1000))
    const s1 = j.record(sub({ nonce: '1', actionType: 'order', summary: 'buy 1 @ 10' })) // t=1000
    j.update(s1.id, { state: 'sent' })
    j.update(s1.id, { state: 'accepted', finalStatus: 'open' })
    const s2 = j.record(sub({ nonce: '2', actionType: 'settle', summary: 'settle, "quoted"' }))
    j.update(s2.id, { state: 'sent' })
    j.update(s2.id, { state: 'rejected', code: 'InvalidSettle' })
    j.record(sub({ nonce: '3', account: B, signer: B, actionType: 'repay', summary: '=SUM(A1)' }))
    return j
  }

  it('filters by account, action type, state and time', () => {
    const j = seeded()
    expect(j.list({ account: A }).map((s) => s.nonce)).toEqual(['2', '1'])
    expect(j.list({ account: B.toUpperCase().replace('0X', '0x') }).map((s) => s.nonce)).toEqual(['3'])
    expect(j.list({ actionType: ['order', 'repay'], order: 'oldest' }).map((s) => s.nonce)).toEqual(['1', '3'])
    expect(j.list({ state: 'rejected' }).map((s) => s.code)).toEqual(['InvalidSettle'])
    const all = j.list({ order: 'oldest' })
    expect(j.list({ since: all[1]!.createdAt, until: all[1]!.createdAt }).map((s) => s.nonce)).toEqual(['2'])
    expect(j.list({ limit: 1, offset: 1 }).map((s) => s.nonce)).toEqual(['2'])
    expect(j.count({ account: A })).toBe(2)
    expect(() => j.list({ state: 'bogus' as never })).toThrowError(expect.objectContaining({ code: 'InvalidQuery' }))
    expect(() => j.list({ limit: 0 })).toThrowError(expect.objectContaining({ code: 'InvalidQuery' }))
  })

  it('records the team proposal a write executed: shown, searched, exported; a bad id or entry is refused', () => {
    const j = mem()
    const s = j.record(sub())
    expect(s.proposalId).toBeNull()
    const P = `0x${'ab'.repeat(32)}`
    expect(j.linkProposal(s.id, P).proposalId).toBe(P)
    expect(j.get(s.id)!.proposalId).toBe(P)
    expect(j.list({ q: 'abababab' }).map((x) => x.id)).toEqual([s.id])
    const [head, row] = j.export({}, 'csv').trimEnd().split('\r\n')
    expect(head!.split(',').at(-1)).toBe('proposal_id')
    expect(row!.split(',').at(-1)).toBe(P)
    expect(() => j.linkProposal(s.id, 'not-an-id')).toThrow(/not a proposal id/)
    expect(() => j.linkProposal(9999, P)).toThrow(/no journal entry 9999/)
  })

  it('exports CSV with quoting and formula neutralisation, and JSON with the parsed body', () => {
    const j = seeded()
    const csv = j.export({}, 'csv')
    const lines = csv.trimEnd().split('\r\n')
    expect(lines[0]).toMatch(/^id,created_at,/)
    expect(lines).toHaveLength(4)
    expect(csv).toContain('"settle, ""quoted"""')
    expect(csv).toContain("'=SUM(A1)")
    expect(csv).not.toContain(',=SUM')
    const json = JSON.parse(j.export({ account: A }, 'json')) as { nonce: string; body: { nonce: string } }[]
    expect(json.map((r) => r.nonce)).toEqual(['1', '2'])
    expect(json[0]!.body.nonce).toBe('1700000000000')
  })
})

describe('account state cache and credit history', () => {
  it('keeps the last known state with its fetch time, never replaced by an older fetch', () => {
    const j = mem(() => 5000)
    j.putState('sandbox', A, 'balances', { '1': { available: '10.5', locked: '0' } }, 100)
    j.putState('sandbox', A, 'balances', { '1': { available: '9' } }, 50)
    expect(j.getState('sandbox', A.toUpperCase().replace('0X', '0x'), 'balances')).toEqual({
      network: 'sandbox',
      account: A,
      kind: 'balances',
      value: { '1': { available: '10.5', locked: '0' } },
      fetchedAt: 100,
    })
    j.putState('sandbox', A, 'agents', [])
    expect(j.getState('sandbox', A, 'agents')?.fetchedAt).toBe(5000)
    expect(j.allStates('sandbox').map((s) => s.kind)).toEqual(['agents', 'balances'])
    expect(j.getState('testnet', A, 'balances')).toBeNull()
    expect(() => j.putState('sandbox', A, 'credit', { x: 1n })).toThrowError(expect.objectContaining({ code: 'InvalidStateValue' }))
  })

  it('stores a batch of last-known values in one go: older fetches lose, a value that is not JSON is skipped, not the batch', () => {
    const j = mem(() => 5000)
    j.putState('sandbox', A, 'balances', { '1': { available: '10' } }, 100)
    j.putStates('sandbox', [
      { account: A.toUpperCase().replace('0X', '0x'), kind: 'balances', value: { '1': { available: 'old' } }, fetchedAt: 50 },
      { account: A, kind: 'credit', value: { x: 1n }, fetchedAt: 200 },
      { account: A, kind: 'agents', value: [], fetchedAt: 300 },
    ])
    expect(j.getState('sandbox', A, 'balances')?.value).toEqual({ '1': { available: '10' } })
    expect(j.getState('sandbox', A, 'credit')).toBeNull()
    expect(j.getState('sandbox', A, 'agents')?.fetchedAt).toBe(300)
  })

  it('appends credit samples and returns them since a time, oldest first', () => {
    const j = mem()
    for (let i = 1; i <= 5; i++) {
      j.appendCreditSample('sandbox', A, {
        at: i * 100,
        status: 'active',
        creditUsdAtoms: String(i * 1_000_000_000_000),
        availableUsdAtoms: i === 3 ? null : '-5',
        lastKnownAvailableUsdAtoms: '7',
        level: 'ok',
        detail: i === 5 ? { ltv: { '1': '50' } } : undefined,
      })
    }
    const h = j.creditHistory('sandbox', A, 300)
    expect(h.map((s) => s.at)).toEqual([300, 400, 500])
    expect(h[0]!.availableUsdAtoms).toBeNull()
    expect(h[2]!.detail).toEqual({ ltv: { '1': '50' } })
    expect(j.creditHistory('sandbox', A, 0, 2).map((s) => s.at)).toEqual([400, 500])
    expect(() =>
      j.appendCreditSample('sandbox', A, {
        at: 1,
        status: null,
        creditUsdAtoms: '1.5',
        availableUsdAtoms: null,
        lastKnownAvailableUsdAtoms: null,
        level: null,
      }),
    ).toThrowError(expect.objectContaining({ code: 'InvalidCreditSample' }))
    expect(j.pruneCreditHistory(300)).toBe(2)
  })
})

describe('journal migrations under concurrency', () => {
  it('two processes opening a new journal at once both end on the latest schema, neither runs a step twice', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'desk-migrate-'))
    try {
      const script = `import { openJournal } from ${JSON.stringify(new URL('./index.ts', import.meta.url).pathname)}; const j = openJournal(process.argv[1]); await j.close(); console.log('ok')`
      const run = () =>
        new Promise<{ code: number | null; out: string }>((resolve) => {
          const c = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script, dir], {
            stdio: ['ignore', 'pipe', 'pipe'],
          })
          let out = ''
          c.stdout.on('data', (d: Buffer) => (out += d.toString()))
          c.stderr.on('data', (d: Buffer) => (out += d.toString()))
          c.on('exit', (code) => resolve({ code, out }))
        })
      const results = await Promise.all([run(), run(), run(), run()])
      for (const r of results) expect(r, r.out).toMatchObject({ code: 0 })
      const j = openJournal(dir)
      expect(j.list({}).length).toBe(0)
      await j.close()
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  }, 60_000)
})
