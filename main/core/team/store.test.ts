/**
 * The team store against a real PostgreSQL (started by main/testing/postgres.ts): migrations,
 * appends, tampering done directly in the database, push to a second desk, and an outage.
 */
import pg from 'pg'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startPostgres, type PostgresHandle } from '../../testing/postgres'
import { verifyStore, exportCsv, followStore } from './audit'
import { rosterEntry } from './authoring'
import { toStoredRow, type ChainReport } from './chain'
import { signedEntry } from './entry'
import { TeamErrors } from './errors'
import { MIGRATIONS } from './migrations'
import { TeamStore } from './store'
import { ChainBuilder, asMember, operator } from './testing/team-fixture'

let db: PostgresHandle
const stores: TeamStore[] = []
const open = async () => {
  const s = await TeamStore.open({ connectionString: db.connectionString, password: db.password, connectTimeoutMs: 1000 })
  stores.push(s)
  return s
}

/** The database administrator: bypasses the append-only trigger, as an owner or superuser can. */
async function asDba(sql: string, params: unknown[] = []): Promise<void> {
  const c = new pg.Client(db.adminConfig)
  await c.connect()
  try {
    await c.query('ALTER TABLE team_log DISABLE TRIGGER team_log_no_change')
    await c.query(sql, params)
    await c.query('ALTER TABLE team_log ENABLE TRIGGER team_log_no_change')
  } finally {
    await c.end()
  }
}

async function resetLog(): Promise<void> {
  await asDba('DELETE FROM team_log')
}

const ann = operator('ann')
const bob = operator('bob')
const cat = operator('cat')
const eve = operator('eve') // not in the team

/** Counts the log reads a store makes from now on (its subscription reads through readLog). */
function spyReads(store: TeamStore): () => number {
  let n = 0
  const read = store.readLog.bind(store)
  store.readLog = ((...a: Parameters<TeamStore['readLog']>) => {
    n++
    return read(...a)
  }) as TeamStore['readLog']
  return () => n
}

async function seedTeam(store: TeamStore): Promise<ChainBuilder> {
  await resetLog()
  const b = await ChainBuilder.genesis(ann, [asMember(ann, ['admin']), asMember(bob, ['admin', 'approver'])])
  await b.roster([{ op: 'add', address: cat.address, name: 'cat', roles: ['trader'] }], [ann])
  await b.policy([{ id: 'all', then: { effect: 'block' } }], [bob])
  for (const e of b.entries) await store.append(e)
  return b
}

beforeAll(async () => {
  db = await startPostgres()
})

afterAll(async () => {
  for (const s of stores) await s.close()
  await db?.stop()
})

describe('team store on PostgreSQL', () => {
  it('applies its migrations once, even when two desks open it at the same moment', async () => {
    const [a, b] = await Promise.all([open(), open()])
    expect(await a.migrate()).toEqual([])
    expect(await b.migrate()).toEqual([])
    const c = new pg.Client(db.adminConfig)
    await c.connect()
    const { rows } = await c.query('SELECT version FROM team_migrations ORDER BY version')
    await c.end()
    expect(rows).toEqual(MIGRATIONS.map((m) => ({ version: m.version })))
    expect(rows.length).toBeGreaterThanOrEqual(3)
  })

  it('refuses a wrong password and a malformed connection string with typed errors', async () => {
    await expect(TeamStore.open({ connectionString: db.connectionString, password: 'wrong' })).rejects.toMatchObject({
      code: TeamErrors.badInput,
      message: expect.stringMatching(/refused the login/),
    })
    await expect(TeamStore.open({ connectionString: 'mysql://x@y/z' })).rejects.toMatchObject({ code: TeamErrors.badInput })
  })

  it('stores a chain that verifies, refuses a second append at a taken seq, and blocks UPDATE for honest clients', async () => {
    const store = await open()
    const b = await seedTeam(store)
    const report = await verifyStore(store, { genesisDigest: b.entries[0]!.digest })
    expect(report.ok).toBe(true)
    expect(report.verified).toBe(3)
    const dup = await signedEntry(b.teamId, { ...rosterEntry(b.state, [{ op: 'quorum', adminQuorum: 2 }]), seq: 2n }, [ann])
    await expect(store.append(dup)).rejects.toMatchObject({ code: TeamErrors.conflict })
    const c = new pg.Client({ ...db.adminConfig })
    await c.connect()
    await expect(c.query("UPDATE team_log SET kind = 'roster' WHERE seq = 2")).rejects.toThrow(/append-only/)
    await c.end()
  })

  it('reads the log in numeric seq order past entry 9 (never as text)', async () => {
    const store = await open()
    const b = await seedTeam(store)
    for (let i = 0; i < 9; i++) await store.append(await b.roster([{ op: 'quorum', adminQuorum: 1 }], [ann]))
    const rows = await store.readLog()
    expect(rows.map((r) => Number(r.seq))).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11])
    expect((await verifyStore(store)).verified).toBe(12)
    expect((await store.readLog(10n)).map((r) => r.seq)).toEqual([10n, 11n])
  })

  it('reports a directly inserted extra approver as tampering at its seq', async () => {
    const store = await open()
    const b = await seedTeam(store)
    // Someone with database access adds eve as an approver, signing with her own key.
    const extra = toStoredRow(
      await signedEntry(b.teamId, rosterEntry(b.state, [{ op: 'add', address: eve.address, name: 'eve', roles: ['approver'] }]), [eve]),
    )
    await asDba('INSERT INTO team_log (seq, prev, kind, payload, digest, signatures) VALUES ($1, $2, $3, $4, $5, $6)', [
      extra.seq.toString(),
      extra.prev,
      extra.kind,
      extra.payload,
      extra.digest,
      extra.signatures,
    ])
    const r = await verifyStore(store)
    expect(r.ok).toBe(false)
    expect(r.broken?.seq).toBe(3n)
    expect(r.broken?.reason).toMatch(/not an admin/)
    expect(r.state.roster?.members.has(eve.address.toLowerCase())).toBe(false)
  })

  it('reports a role changed by UPDATE as tampering at the edited entry, even with its digest recomputed', async () => {
    const store = await open()
    await seedTeam(store)
    const rows = await store.readLog()
    const edited = rows[1]!.payload.replace('"trader"', '"approver"')
    await asDba('UPDATE team_log SET payload = $1 WHERE seq = 1', [edited])
    let r = await verifyStore(store)
    expect(r.broken).toEqual({ seq: 1n, reason: 'content does not match its stored digest (the row was edited)' })
    expect(r.verified).toBe(1)
    // A careful tamperer recomputes the digest too: the admin's signature no longer matches it.
    const { entryDigest } = await import('./entry')
    const teamId = JSON.parse(rows[0]!.payload).teamId
    const digest = entryDigest(teamId, { seq: 1n, prev: rows[1]!.prev as `0x${string}`, kind: 'roster', payload: edited })
    await asDba('UPDATE team_log SET digest = $1 WHERE seq = 1', [digest])
    r = await verifyStore(store)
    expect(r.broken?.seq).toBe(1n)
    expect(r.broken?.reason).toMatch(/signature of .* does not verify/)
    const csv = await exportCsv(store)
    const lines = csv.trim().split('\r\n')
    expect(lines[0]).toBe('seq,hash,prev,kind,signers,created_at,verified,payload')
    expect(lines[1]).toMatch(new RegExp(`^0,${rows[0]!.digest},0x0{64},genesis,${ann.address.toLowerCase()},.*,yes,`))
    expect(lines[2]).toMatch(/^1,.*,NO: signature of .* does not verify,/)
    expect(lines[3]).toMatch(/,no \(after a broken link\),/)
  })

  // How fast (p99 within 1 s at 10 desks) is the team-scale bench's figure; this checks that it is a push at all.
  it('pushes a new entry to a second desk, verified, without polling', async () => {
    const deskA = await open()
    const deskB = await open()
    const b = await seedTeam(deskA)
    const reports: { at: number; report: ChainReport }[] = []
    const sub = followStore(deskB, { onReport: (report) => reports.push({ at: performance.now(), report }) })
    await sub.ready
    await expect.poll(() => reports.at(-1)?.report.verified, { timeout: 10_000 }).toBe(3)
    // Nothing arrives while nothing is appended: no polling loop re-reads the log.
    const reads = spyReads(deskB)
    await new Promise((r) => setTimeout(r, 1500))
    expect(reads()).toBe(0)
    const next = await signedEntry(b.teamId, rosterEntry(b.state, [{ op: 'roles', address: cat.address, roles: ['trader', 'approver'] }]), [
      ann,
    ])
    await deskA.append(next)
    await expect.poll(() => reports.at(-1)?.report.verified, { timeout: 10_000, interval: 10 }).toBe(4)
    expect(reads()).toBeGreaterThan(0) // the push made the desk read the new entry
    const last = reports.at(-1)!
    expect(last.report.state.roster?.members.get(cat.address.toLowerCase())?.roles).toEqual(['trader', 'approver'])
    await sub.close()
  })

  it('says unreachable while the database is down, and catches up on everything when it returns', async () => {
    const deskA = await open()
    const deskB = await open()
    const b = await seedTeam(deskA)
    const statuses: string[] = []
    let verified = 0
    const sub = followStore(deskB, { onReport: (r) => (verified = r.verified), onStatus: (s) => statuses.push(s) })
    await sub.ready
    await expect.poll(() => verified, { timeout: 10_000 }).toBe(3)
    const next = await signedEntry(b.teamId, rosterEntry(b.state, [{ op: 'quorum', adminQuorum: 2 }]), [ann])

    await db.stopServer()
    await expect(deskA.append(next)).rejects.toMatchObject({ code: TeamErrors.unreachable })
    await expect(deskB.readLog()).rejects.toMatchObject({ code: TeamErrors.unreachable })
    await expect.poll(() => statuses.at(-1), { timeout: 5000 }).toBe('unreachable')

    await db.startServer()
    await deskA.append(next) // the same signed entry, nothing re-signed
    await expect.poll(() => verified, { timeout: 5000 }).toBe(4)
    expect(statuses.at(-1)).toBe('live')
    expect((await verifyStore(deskA)).state.roster?.adminQuorum).toBe(2)
    await sub.close()
  })
})
