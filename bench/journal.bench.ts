/**
 * Journal write latency with fsync: `Journal.record()` (nonce claim + submission + history row in
 * one transaction, WAL, synchronous=FULL) and a full submission lifecycle (record, sent,
 * accepted), against a bare better-sqlite3 INSERT of the same row size with the same settings.
 */
import Database from 'better-sqlite3'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { openJournal } from '../main/core/journal'
import { fromRuns, median, percentile } from './judge'
import type { BenchResult } from './types'

/** Interleaved rounds (the load drifts; each ratio compares rounds made side by side) of PER_ROUND writes each. */
const ROUNDS = 7
const PER_ROUND = 60
/** Goal: recording a submission costs at most 1.25x a bare fsync'd insert (the fsync is the cost). */
const GOAL = 1.25
const BODY = JSON.stringify({
  action: { type: 'settle', asset_id: '3', amount: '10000000', cash_account: '0x' + '1'.repeat(40), cloid: '0x' + 'a'.repeat(32) },
  nonce: '1700000000000',
  expires_after_ms: '1700000120000',
  auth_scheme: 'eip712',
  signature: '0x' + 'b'.repeat(130),
})

function ms(t0: bigint): number {
  return Number(process.hrtime.bigint() - t0) / 1e6
}

export default async function run(): Promise<BenchResult> {
  const dir = mkdtempSync(join(tmpdir(), 'journal-bench-'))
  try {
    const journal = openJournal(join(dir, 'j'))
    const db = new Database(join(dir, 'bare.sqlite'))
    db.pragma('journal_mode = WAL')
    db.pragma('synchronous = FULL')
    db.exec('CREATE TABLE t (id INTEGER PRIMARY KEY, key TEXT, nonce TEXT, body TEXT, state TEXT, created_at INTEGER)')
    const ins = db.prepare('INSERT INTO t (key, nonce, body, state, created_at) VALUES (?, ?, ?, ?, ?)')
    let seq = 0
    const recordRound = (): { record: number[]; lifecycle: number[] } => {
      const record: number[] = []
      const lifecycle: number[] = []
      for (let i = 0; i < PER_ROUND; i++, seq++) {
        const t0 = process.hrtime.bigint()
        const s = journal.record({
          channel: 'trade',
          key: '0x' + seq.toString(16).padStart(32, '0'),
          network: 'sandbox',
          account: '0x' + '2'.repeat(40),
          signer: '0x' + '2'.repeat(40),
          actionType: 'settle',
          summary: 'settle 0.1 BTC to 0x1111…1111',
          nonce: String(1_700_000_000_000 + seq),
          body: BODY,
        })
        record.push(ms(t0))
        journal.update(s.id, { state: 'sent', attempt: true })
        journal.update(s.id, { state: 'accepted', finalStatus: 'accepted', txHash: '0x' + 'c'.repeat(64) })
        lifecycle.push(ms(t0))
      }
      return { record, lifecycle }
    }
    const bareRound = (): number[] => {
      const out: number[] = []
      for (let i = 0; i < PER_ROUND; i++, seq++) {
        const t0 = process.hrtime.bigint()
        ins.run('0x' + seq.toString(16), String(seq), BODY, 'signed', Date.now())
        out.push(ms(t0))
      }
      return out
    }
    recordRound() // warm-up (statement preparation, page cache)
    bareRound()
    const ratios: number[] = []
    const record: number[] = []
    const lifecycle: number[] = []
    const bare: number[] = []
    for (let r = 0; r < ROUNDS; r++) {
      const b = bareRound()
      const j = recordRound()
      ratios.push(median(j.record) / median(b))
      record.push(...j.record)
      lifecycle.push(...j.lifecycle)
      bare.push(...b)
    }
    await journal.close()
    db.close()

    const r = (x: number) => Math.round(x * 1000) / 1000
    return {
      description: `Journal.record() (nonce claim + submission + history in one fsync'd transaction) and the full record/sent/accepted lifecycle against a bare better-sqlite3 INSERT of the same body, WAL + synchronous=FULL, ${ROUNDS} interleaved rounds of ${PER_ROUND} on a temp dir`,
      figures: [
        fromRuns(
          {
            name: 'record_vs_bare_fsync_insert',
            what: "median Journal.record() over median bare fsync'd insert, per interleaved round; wall time (the cost is the fsync, which CPU time does not see)",
            unit: 'x',
            goal: GOAL,
            better: 'lower',
            clock: 'wall',
          },
          ratios,
        ),
      ],
      metrics: {
        record_p50_ms: r(percentile(record, 50)),
        record_p99_ms: r(percentile(record, 99)),
        lifecycle_p50_ms: r(percentile(lifecycle, 50)),
        lifecycle_p99_ms: r(percentile(lifecycle, 99)),
        bare_insert_p50_ms: r(percentile(bare, 50)),
        bare_insert_p99_ms: r(percentile(bare, 99)),
        samples: record.length,
      },
      verdict: `recording a submission costs ${r(median(ratios))}x a bare fsync'd insert (median of ${ROUNDS} rounds): the fsync dominates, and the journal adds its nonce check and history row inside the same commit`,
    }
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}
