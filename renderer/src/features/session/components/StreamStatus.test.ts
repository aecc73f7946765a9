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
  connected: true, connections: 1, connectionLimit: 1, neededConnections: 1, subscriptions: 8,
  lastMessageAt: Date.now() - 2_000, reconnects: 0, droppedFrames: 0, detail: 'streaming 2 accounts', ...over,
})

beforeEach(() => {
  setActivePinia(createPinia())
  document.body.innerHTML = '<main id="app"></main>'
})
afterEach(() => {
  document.body.innerHTML = ''
})

async function show(s: Status) {
  useSessionStore().stream = s
  const w = mount(StreamStatus, { attachTo: '#app' })
  await flush()
  return w
}

describe('StreamStatus', () => {
  it('says "Live" with no warning on one connection', async () => {
    const w = await show(status())
    const button = w.get('button')
    expect(button.text()).toBe('●\u00a0Live')
    expect(button.attributes('aria-label')).toBe('Live: live stream connected, 1 connection for 8 subscriptions; details')
    expect(await seriousA11yViolations()).toEqual([])
  })

  it('does not warn when several connections carry the subscriptions (the default setup: counted, not refused), and says what it means', async () => {
    const w = await show(status({ connections: 2, neededConnections: 2, subscriptions: 15, newConnectionsLastMinute: 2, newConnectionLimitPerMinute: 30 }))
    expect(w.get('button').text()).toBe('●\u00a0Live')
    expect(w.get('button').text()).not.toContain('⚠')
    await w.get('button').trigger('click')
    await flush()
    const text = document.body.textContent ?? ''
    expect(text).toContain('2 connections open for 15 subscriptions; the service allows 10 subscriptions per connection.')
    expect(text).toContain('The service counts 1 connection per IP address and 30 new connections a minute, without refusing more.')
    expect(text).toContain('The desk opened 2 in the last minute.')
    expect(await seriousA11yViolations()).toEqual([])
  })

  it('warns in words when the desk opens more new connections a minute than the service counts', async () => {
    const w = await show(status({ newConnectionsLastMinute: 31, newConnectionLimitPerMinute: 30 }))
    expect(w.get('button').text()).toBe('⚠\u00a0Live, reconnecting too often')
    await w.get('button').trigger('click')
    await flush()
    expect(document.body.textContent).toContain('More new connections in the last minute than the service counts')
  })

  it('says when channels are polled because they do not fit, and when the stream is down', async () => {
    const polled = await show(status({ connections: 1, neededConnections: 2 }))
    expect(polled.get('button').text()).toBe('⚠\u00a0Live, some channels polled')
    await polled.get('button').trigger('click')
    await flush()
    expect(document.body.textContent).toContain('the rest is refreshed through /info within the rate budget')
    polled.unmount()
    const down = await show(status({ connected: false }))
    expect(down.get('button').text()).toBe('⚠\u00a0Stream down')
    expect(down.get('button').attributes('aria-label')).toMatch(/^Stream down: live stream disconnected, /)
  })
})
