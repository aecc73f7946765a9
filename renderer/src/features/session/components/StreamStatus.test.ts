// @vitest-environment happy-dom
/** The top bar's stream status: sockets against the service's counted limit, and why it warns. */
import { mount } from '@vue/test-utils'
import { createPinia, setActivePinia } from 'pinia'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import type { StreamStatus as Status } from '../../../../../main/contract/types'
import { seriousA11yViolations } from '../../../testing/axe'
import { flush } from '../../../testing/fake-desk'
import { useSessionStore } from '../store'
import StreamStatus from './StreamStatus.vue'

const status = (over: Partial<Status> = {}): Status => ({
  connected: true,
  connections: 1,
  connectionLimit: 1,
  neededConnections: 1,
  subscriptions: 8,
  lastMessageAt: Date.now() - 2_000,
  reconnects: 0,
  droppedFrames: 0,
  detail: 'streaming 2 accounts',
  ...over,
})

beforeEach(() => {
  setActivePinia(createPinia())
  document.body.innerHTML = '<main id="app"></main>'
})
afterEach(() => {
  document.body.innerHTML = ''
})

async function show(s: Status, accounts: number | null = null) {
  useSessionStore().stream = s
  const w = mount(StreamStatus, { attachTo: '#app', props: { accounts } })
  await flush()
  return w
}

async function open(w: Awaited<ReturnType<typeof show>>): Promise<string> {
  await w.get('button').trigger('click')
  await flush()
  return (document.body.textContent ?? '').replace(/\s+/g, ' ')
}

describe('StreamStatus', () => {
  it('strict, 1 socket: "Live" with no warning, and says what it means (connections, subscriptions, live and refreshed accounts)', async () => {
    const w = await show(
      status({
        strict: true,
        subscriptions: 10,
        liveAccounts: 3,
        leastFreshUser: '0xabcdef0123456789abcdef0123456789abcdef01',
        leastFreshAt: Date.now() - 42_000,
        rotations: 4,
        newConnectionsLastMinute: 1,
        newConnectionLimitPerMinute: 30,
      }),
      20,
    )
    const button = w.get('button')
    expect(button.text()).toBe('●\u00a0Live')
    expect(button.classes()).not.toContain('warn')
    expect(button.attributes('aria-label')).toBe(
      'Live: live stream connected, 1 connection of the 1 the service counts; 10 of 10 subscriptions; 3 accounts live, 17 refreshed in turn; details',
    )
    const text = await open(w)
    expect(text).toContain('1 connection of the 1 the service counts; 10 of 10 subscriptions; 3 accounts live, 17 refreshed in turn.')
    expect(text).toContain('the rest are refreshed through /info in turn, oldest first (4 moves in or out of the live set so far)')
    expect(text).toMatch(/Least fresh account: 0xabcd…ef01, [0-9]+s ago\./)
    expect(await seriousA11yViolations()).toEqual([])
  })

  it('strict limits off on the sandbox with 3 sockets: warns, and says plainly it would go dark once enforced', async () => {
    const w = await show(
      status({
        strict: false,
        connections: 3,
        neededConnections: 3,
        subscriptions: 25,
        liveAccounts: 9,
        newConnectionsLastMinute: 3,
        newConnectionLimitPerMinute: 30,
      }),
      9,
    )
    const button = w.get('button')
    expect(button.text()).toBe('⚠\u00a0Limits off')
    expect(button.classes()).toContain('warn')
    expect(button.attributes('aria-label')).toBe(
      'Limits off: live stream connected, strict limits off on this sandbox: 3 connections, the service counts 1 — not enforced yet; 25 of 30 subscriptions; details',
    )
    const text = await open(w)
    expect(text).toContain(
      'Strict limits off on this sandbox: 3 connections, the service counts 1 — not enforced yet; 25 of 30 subscriptions.',
    )
    expect(text).toContain('A service enforcing what it counts would refuse them; real networks always run strict.')
    expect(await seriousA11yViolations()).toEqual([])
  })

  it('strict limits off with one socket is no warning (the desk is within what the service counts)', async () => {
    const w = await show(status({ strict: false, connections: 1, subscriptions: 6, liveAccounts: 2 }), 2)
    expect(w.get('button').text()).toBe('●\u00a0Live')
  })

  it('warns in words when the new-connection budget of the minute is spent', async () => {
    const w = await show(status({ strict: true, liveAccounts: 2, newConnectionsLastMinute: 30, newConnectionLimitPerMinute: 30 }), 5)
    expect(w.get('button').text()).toBe('⚠\u00a0Connection budget spent')
    expect(w.get('button').attributes('aria-label')).toMatch(
      /^Connection budget spent: live stream connected, 30 of the 30 new connections a minute the service counts are spent: the next one waits; /,
    )
    const text = await open(w)
    expect(text).toContain('The new connections the service counts for this minute are spent: the next connection waits.')
    expect(await seriousA11yViolations()).toEqual([])
  })

  it('strict mode refreshing accounts in turn is not a warning; the stream being down is', async () => {
    const polled = await show(status({ strict: true, connections: 1, neededConnections: 4, liveAccounts: 3 }), 20)
    expect(polled.get('button').text()).toBe('●\u00a0Live')
    polled.unmount()
    const down = await show(status({ connected: false, strict: true, liveAccounts: 0 }), 20)
    expect(down.get('button').text()).toBe('⚠\u00a0Stream down')
    expect(down.get('button').attributes('aria-label')).toMatch(
      /^Stream down: live stream disconnected, stream down, values age until it reconnects; /,
    )
  })

  it('no "Stream down" warning on a desk with no accounts: there is nothing to stream (issue 31)', async () => {
    const empty = await show(status({ connected: false, connections: 0, subscriptions: 0, liveAccounts: 0 }), 0)
    expect(empty.get('button').text()).toBe('●\u00a0No accounts')
    expect(empty.get('button').attributes('aria-label')).not.toMatch(/down/i)
    expect(await seriousA11yViolations()).toEqual([])
  })
})
