import { describe, expect, it, vi } from 'vitest'
import type { DeskBridge } from '../../../../main/contract/bridge'
import { TOKEN_KEY, createWebBridge, reloadOnPastedToken, webHostToken } from './web-adapter'

/** One tab's sessionStorage. */
function tabStore(): Pick<Storage, 'getItem' | 'setItem'> & { data: Map<string, string> } {
  const data = new Map<string, string>()
  return { data, getItem: (k) => data.get(k) ?? null, setItem: (k, v) => void data.set(k, v) }
}

/** A WebSocket stand-in that records the URL it was opened with and never opens. */
function recordingSocket(urls: string[]): typeof WebSocket {
  class Fake {
    static OPEN = 1
    readyState = 0
    onopen: (() => void) | null = null
    onclose: (() => void) | null = null
    onmessage: (() => void) | null = null
    constructor(url: string) {
      urls.push(url)
    }
    send(): void {}
  }
  return Fake as unknown as typeof WebSocket
}

const TOKEN = 'a'.repeat(64)

describe('the web host token across reloads (issue 31.4)', () => {
  it('keeps the token of the printed URL in the tab, so a reload (the router has replaced the fragment) presents it again', () => {
    const tab = tabStore()
    expect(webHostToken({ hash: `#token=${TOKEN}` }, tab)).toBe(TOKEN)
    expect(tab.data.get(TOKEN_KEY)).toBe(TOKEN)
    // The reload: the fragment is the router's now.
    expect(webHostToken({ hash: '#/account/0xabc' }, tab)).toBe(TOKEN)
    const urls: string[] = []
    const bridge = createWebBridge(
      { hash: '#/overview', host: '127.0.0.1:4000', protocol: 'http:' },
      recordingSocket(urls),
      webHostToken({ hash: '#/overview' }, tab),
    )
    bridge.on(() => {})
    expect(urls).toEqual([`ws://127.0.0.1:4000/bridge?token=${TOKEN}`])
  })

  it('a tab that was never given the token has none: it presents nothing the host accepts', () => {
    const other = tabStore()
    expect(webHostToken({ hash: '#/overview' }, other)).toBe('')
    expect(webHostToken({ hash: '' }, null)).toBe('')
    const urls: string[] = []
    createWebBridge({ hash: '', host: '127.0.0.1:4000', protocol: 'http:' }, recordingSocket(urls), '').on(() => {})
    expect(urls).toEqual(['ws://127.0.0.1:4000/bridge?token='])
  })

  it('a newer token wins over the kept one (the host was started again)', () => {
    const tab = tabStore()
    webHostToken({ hash: `#token=${TOKEN}` }, tab)
    expect(webHostToken({ hash: `#token=${'b'.repeat(64)}` }, tab)).toBe('b'.repeat(64))
    expect(webHostToken({ hash: '#/overview' }, tab)).toBe('b'.repeat(64))
  })

  it('the printed URL pasted into the same tab (a fragment change, no page load) reloads when it brings another token or the bridge is down', () => {
    const listeners: (() => void)[] = []
    const location = { hash: '#/overview', reload: vi.fn() }
    const win = {
      addEventListener: (name: string, l: () => void) => name === 'hashchange' && listeners.push(l),
      location,
    } as unknown as Window
    const bridge = { socketState: 1 } as unknown as DeskBridge
    reloadOnPastedToken(win, bridge, TOKEN)
    const paste = (hash: string) => {
      location.hash = hash
      for (const l of listeners) l()
    }
    paste('#/journal') // the router's own navigation
    paste(`#token=${TOKEN}`) // the same URL again, connected: the router takes it to the overview
    expect(location.reload).not.toHaveBeenCalled()
    paste(`#token=${'b'.repeat(64)}`)
    expect(location.reload).toHaveBeenCalledTimes(1)
    ;(bridge as unknown as { socketState: number }).socketState = 3
    paste(`#token=${TOKEN}`)
    expect(location.reload).toHaveBeenCalledTimes(2)
  })
})
