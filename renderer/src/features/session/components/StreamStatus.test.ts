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
  it('shows the open connections against the counted limit, with no warning when within it', async () => {
    const w = await show(status())
    const button = w.get('button')
    expect(button.text()).toBe('● live · 1 of 1 counted')
    expect(button.attributes('aria-label')).toContain('connected, 1 connection of 1 counted per IP')
    expect(await seriousA11yViolations()).toEqual([])
  })

  it('warns when more sockets are open than the service counts, and says so in the details', async () => {
    const w = await show(status({ connections: 3, neededConnections: 3, subscriptions: 28 }))
    expect(w.get('button').text()).toBe('● live · 3 of 1 counted ⚠')
    await w.get('button').trigger('click')
    await flush()
    const text = document.body.textContent ?? ''
    expect(text).toContain('3 connections open; the service counts 1 per IP.')
    expect(text).toContain('28 subscriptions (10 per connection); all of them need 3 connections.')
    expect(text).toContain('More connections than the service counts per IP')
    expect(await seriousA11yViolations()).toEqual([])
  })

  it('says when channels are polled because they do not fit, and when the stream is down', async () => {
    const w = await show(status({ connected: false, connections: 1, neededConnections: 2, detail: 'socket closed.' }))
    expect(w.get('button').text()).toBe('○ stream down · 1 of 1 counted ⚠')
    await w.get('button').trigger('click')
    await flush()
    expect(document.body.textContent).toContain('the rest is refreshed through /info within the rate budget')
    expect(document.body.textContent).toContain('socket closed.')
  })
})
