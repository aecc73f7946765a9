import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { SettingsStore } from '../../config/settings'
import { EventHub } from '../../ipc/events'
import { openJournal, type Journal } from '../../journal'
import type { NetworkSession } from '../../session'
import { AlertService } from './alerts.service'

/**
 * Stream updates trigger alert passes, which run one at a time. While one is slow, the updates
 * that keep coming must not each queue a pass of their own (in the 200-account soak they piled up
 * at one a second, without bound): they join the one pass waiting, and none of their accounts is
 * dropped.
 */
describe('stream-triggered alert passes behind a slow one', () => {
  let dir: string
  let journal: Journal
  let svc: AlertService

  beforeEach(() => {
    vi.useFakeTimers()
    dir = mkdtempSync(join(tmpdir(), 'desk-alerts-coalesce-'))
    journal = openJournal(dir)
  })

  afterEach(async () => {
    vi.useRealTimers()
    await svc?.close()
    journal.close()
    rmSync(dir, { recursive: true, force: true })
  })

  it('queues at most one pass, which covers every account updated meanwhile', async () => {
    const users = Array.from({ length: 10 }, (_, i) => `0x${String(i).repeat(40)}`)
    let onUpdate: ((u: { kind: string; user: string }) => void) | null = null
    // A session whose pool reports updates; the rules' reads of it fail, and each failure is
    // logged with the account it was for: the log shows which accounts a pass covered.
    const session = {
      pool: {
        subscribe(cb: (u: { kind: string; user: string }) => void) {
          onUpdate = cb
          return () => {}
        },
      },
      market: { peek: () => null },
    } as unknown as NetworkSession
    let release!: () => void
    const slow = new Promise<void>((r) => (release = r))
    let passes = 0
    const lines: string[] = []
    svc = new AlertService({
      journal,
      events: new EventHub(),
      sessions: {
        // Each pass starts by asking for the session: the first one waits until released.
        current: async () => {
          passes++
          if (passes === 1) await slow
          return session
        },
        onOpened: (listener) => {
          listener(session)
          return () => {}
        },
      },
      settings: new SettingsStore(dir),
      accounts: () => users.map((address, i) => ({ address, label: `A${i}` })),
      vaultUnlocked: () => false,
      now: () => Date.now(),
      log: (line) => lines.push(line),
      debounceMs: 0,
    })
    svc.start()
    expect(onUpdate).not.toBeNull()
    // The first update's pass starts and hangs; nine more updates arrive, each in its own burst.
    for (const user of users) {
      onUpdate!({ kind: 'balances', user })
      await vi.advanceTimersByTimeAsync(1)
    }
    expect(passes).toBe(1)
    release()
    await vi.advanceTimersByTimeAsync(1)
    // The slow pass, then one pass for the nine (not nine passes).
    expect(passes).toBe(2)
    const covered = new Set(users.filter((u) => lines.some((l) => l.includes(u))))
    expect([...covered].sort()).toEqual([...users].sort())
  })
})
