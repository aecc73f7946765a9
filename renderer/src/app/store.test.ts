// @vitest-environment happy-dom
import { mount } from '@vue/test-utils'
import { createPinia, setActivePinia } from 'pinia'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { NetworkBanner } from '../features/session'
import { flush, installFakeDesk, type FakeDesk } from '../testing/fake-desk'
import { appState, submission } from '../testing/fixtures'
import { wireEvents } from './store'
import type { TeamEvent } from '../../../main/contract/types'
import { useConfirmStore } from '../features/confirm/store'
import { useJournalStore } from '../features/journal/store'
import { useNotificationsStore } from '../features/notifications/store'
import { usePolicyStore } from '../features/policy/store'
import { useSessionStore } from '../features/session/store'

let desk: FakeDesk
let unwire: () => void
beforeEach(() => {
  desk = installFakeDesk()
  setActivePinia(createPinia())
  unwire = wireEvents()
})
afterEach(() => unwire())

describe('session and events', () => {
  it('re-reads a loaded policy view when the team chain changed (an approved guardrail change applied by this desk)', async () => {
    let limit = '500'
    desk.handle('policy.show', () => ({
      network: 'sandbox',
      coolingOffMs: 60_000,
      sandboxDefaults: false,
      rules: [{ name: 'max-order-usd', value: limit, unit: 'USD per order', pending: null }],
      halted: null,
      addresses: [],
      events: [],
    }))
    const policy = usePolicyStore()
    const team: Omit<TeamEvent, 'proposalsChanged'> = {
      status: {
        configured: true,
        state: 'live',
        detail: 'live',
        broken: null,
        store: null,
        teamId: 't',
        teamName: 'Treasury',
        me: { address: null, name: null, roles: [] },
        chain: { length: 7, headSeq: '7', headDigest: null },
        policyVersion: 2,
        needsMyApproval: 0,
        waitingOnOthers: 0,
      },
    }
    // Nothing loaded yet: a push reads nothing.
    desk.emit('state.team', { ...team, proposalsChanged: true })
    await flush()
    expect(desk.callsTo('policy.show')).toHaveLength(0)
    await policy.load()
    limit = '800'
    desk.emit('state.team', { ...team, proposalsChanged: false })
    await flush()
    expect(desk.callsTo('policy.show')).toHaveLength(1)
    desk.emit('state.team', { ...team, proposalsChanged: true })
    await flush()
    expect(desk.callsTo('policy.show')).toHaveLength(2)
    expect(policy.view?.rules[0]).toMatchObject({ value: '800' })
  })

  it('shows confirmations the app asked for, never those a desk command asked for (answered at its terminal)', () => {
    const confirm = useConfirmStore()
    desk.emit('confirm.request', {
      id: 'cli-1',
      title: 'Transfer 5 USDC',
      summary: [],
      needsPassphrase: false,
      expiresAt: Date.now() + 60_000,
      origin: 'cli',
    })
    expect(confirm.queue).toEqual([])
    desk.emit('confirm.request', {
      id: 'app-1',
      title: 'Transfer 5 USDC',
      summary: [],
      needsPassphrase: false,
      expiresAt: Date.now() + 60_000,
      origin: 'app',
    })
    expect(confirm.queue.map((r) => r.id)).toEqual(['app-1'])
  })

  it('follows the vault lock, notifies when the live stream drops, and records pushed notifications once', async () => {
    desk.handle('app.state', () => appState())
    const session = useSessionStore()
    const notes = useNotificationsStore()
    await session.load()
    expect(session.unlocked).toBe(true)
    desk.emit('vault.status', { exists: true, unlocked: false, lastPassphraseAt: null, autoLockMinutes: 15 })
    expect(session.unlocked).toBe(false)

    const st = (connected: boolean, detail: string) => ({
      connected,
      connections: 1,
      connectionLimit: 1,
      neededConnections: 1,
      subscriptions: 4,
      lastMessageAt: 1,
      reconnects: 0,
      droppedFrames: 0,
      detail,
    })
    // The first connection at start is not news: no "reconnected" for it.
    desk.emit('stream.status', st(false, 'connecting'))
    desk.emit('stream.status', st(true, 'ok'))
    expect(notes.items.filter((n) => n.kind === 'stream')).toEqual([])
    desk.emit('stream.status', st(false, 'socket closed.'))
    expect(notes.items[0]).toMatchObject({ kind: 'stream', level: 'warning', title: 'Live stream disconnected' })
    desk.emit('stream.status', st(true, 'open again'))
    expect(
      notes.items
        .filter((n) => n.kind === 'stream')
        .map((n) => n.title)
        .sort(),
    ).toEqual(['Live stream disconnected', 'Live stream reconnected'])

    const fill = { id: 'n1', kind: 'fill' as const, level: 'info' as const, title: 'Fill', message: 'bought 1 BTC', atMs: 5 }
    desk.emit('notify', fill)
    desk.emit('notify', fill)
    expect(notes.items.filter((n) => n.id === 'n1')).toHaveLength(1)
    expect(notes.unread).toBeGreaterThan(0)
    notes.markSeen()
    expect(notes.unread).toBe(0)
  })

  it('journal follows pushed changes of a tracked submission and inserts new matching ones', () => {
    const journal = useJournalStore()
    journal.track(submission({ state: 'sent', updatedAt: 1 }))
    desk.emit('journal.changed', submission({ state: 'accepted', updatedAt: 2 }))
    expect(journal.byCloid['0x0123456789abcdef0123456789abcdef']?.state).toBe('accepted')
    expect(journal.entries).toHaveLength(1)
    desk.emit('journal.changed', submission({ state: 'reconciled', updatedAt: 3 }))
    expect(journal.entries).toHaveLength(1)
    expect(journal.entries[0]?.state).toBe('reconciled')
  })
})

describe('NetworkBanner', () => {
  it('labels the sandbox as such and shouts mainnet', async () => {
    desk.handle('app.state', () => appState())
    const session = useSessionStore()
    await session.load()
    const w = mount(NetworkBanner)
    expect(w.text()).toMatch(/^SANDBOX — local exchange, no real funds/)
    desk.handle('app.state', () => appState({ network: { ...appState().network, name: 'main', kind: 'mainnet', chainId: 1 } }))
    await session.load()
    await flush()
    expect(w.text()).toMatch(/^MAINNET — REAL FUNDS — main \(chain id 1\)/)
    expect(w.classes()).toContain('mainnet')
  })
})
