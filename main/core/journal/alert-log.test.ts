import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import Database from 'better-sqlite3'
import { afterEach, describe, expect, it } from 'vitest'
import { openJournalFile, type Journal } from './index'

const open: Journal[] = []
afterEach(() => {
  for (const j of open.splice(0)) j.closeNow()
})
function mem(now: () => number = () => 1_000): Journal {
  const j = openJournalFile(':memory:', { now })
  open.push(j)
  return j
}
const alert = (i: number) => ({
  network: 'sandbox',
  kind: 'order-filled',
  level: 'info',
  title: `t${i}`,
  message: `m${i}`,
  account: null,
  at: 1_000 + i,
  desktopSuppressed: false,
})

describe('alert log (migration 4)', () => {
  it('fires once per key and network', () => {
    const j = mem()
    expect(j.alerts.fire('k', alert(1))).toMatchObject({ id: 1, title: 't1', acknowledgedAt: null })
    expect(j.alerts.fire('k', alert(2))).toBeNull()
    expect(j.alerts.fire('k', { ...alert(3), network: 'testnet' })).not.toBeNull()
    expect(j.alerts.list().map((a) => a.title)).toEqual(['t3', 't1'])
  })

  it('keeps the newest 500, newest first, and still remembers the fired keys of pruned ones', () => {
    const j = mem()
    for (let i = 1; i <= 510; i++) j.alerts.fire(`k${i}`, alert(i))
    const all = j.alerts.list({ limit: 10_000 })
    expect(all).toHaveLength(500)
    expect(all[0]!.title).toBe('t510')
    expect(all[499]!.title).toBe('t11')
    expect(j.alerts.fire('k1', alert(1))).toBeNull()
    expect(j.alerts.list({ sinceMs: 1_505, limit: 3 }).map((a) => a.title)).toEqual(['t510', 't509', 't508'])
  })

  it('acknowledges once, keeps state and settings', () => {
    let t = 5_000
    const j = mem(() => t)
    const a = j.alerts.fire('k', alert(1))!
    expect(j.alerts.acknowledge(a.id)!.acknowledgedAt).toBe(5_000)
    t = 6_000
    expect(j.alerts.acknowledge(a.id)!.acknowledgedAt).toBe(5_000)
    expect(j.alerts.acknowledge(999)).toBeNull()
    j.alerts.setState('sandbox', 'x', '1')
    expect(j.alerts.getState('sandbox', 'x')).toBe('1')
    expect(j.alerts.getState('testnet', 'x')).toBeNull()
    j.alerts.setState('sandbox', 'x', null)
    expect(j.alerts.getState('sandbox', 'x')).toBeNull()
    expect(j.alerts.settingsJson()).toBeNull()
    j.alerts.saveSettingsJson('{"a":1}')
    expect(j.alerts.settingsJson()).toBe('{"a":1}')
  })

  it('stores rule state set in one turn together on the next turn, and what is pending before a close', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'alert-log-'))
    try {
      const file = join(dir, 'journal.db')
      const j = openJournalFile(file, { now: () => 7_000 })
      open.push(j)
      const stored = () => {
        const db = new Database(file, { readonly: true })
        try {
          return (db.prepare(`SELECT COUNT(*) AS n FROM alert_state WHERE network = 'sandbox'`).get() as { n: number }).n
        } finally {
          db.close()
        }
      }
      for (let i = 0; i < 200; i++) j.alerts.setState('sandbox', `funds-checked:0x${i}`, String(i))
      j.alerts.setState('sandbox', 'funds-checked:0x7', null)
      // Not one disk sync per key: nothing stored yet, every value readable already.
      expect(stored()).toBe(0)
      expect(j.alerts.getState('sandbox', 'funds-checked:0x5')).toBe('5')
      expect(j.alerts.getState('sandbox', 'funds-checked:0x7')).toBeNull()
      await new Promise((r) => setImmediate(r))
      expect(stored()).toBe(199)
      j.alerts.setState('sandbox', 'late', '1')
      j.alerts.flush()
      expect(stored()).toBe(200)
      // A fired key is stored with what was set before it.
      j.alerts.setState('sandbox', 'before-fire', '1')
      expect(j.alerts.fire('k', alert(1))).not.toBeNull()
      expect(stored()).toBe(202)
    } finally {
      for (const j of open.splice(0)) j.closeNow()
      rmSync(dir, { recursive: true, force: true })
    }
  })
})
