import type { DeskBridge } from '../../../../main/contract/bridge'

/** Where a tab keeps the web host's token across a reload (this tab only; gone when it closes). */
export const TOKEN_KEY = 'desk.webHostToken'

type TokenStore = Pick<Storage, 'getItem' | 'setItem'>

/** The tab's sessionStorage, or null where the browser refuses it (the token then lives in the URL only). */
function tabStorage(): TokenStore | null {
  try {
    return typeof sessionStorage === 'undefined' ? null : sessionStorage
  } catch {
    return null
  }
}

/** The token a URL fragment carries (`#token=...`), or null. */
export function tokenInHash(hash: string): string | null {
  const t = new URLSearchParams(hash.replace(/^#/, '')).get('token')
  return t ? t : null
}

/**
 * The web host's per-launch token for this tab: the one in the URL the host printed (kept in the
 * tab's sessionStorage), else the one this tab kept when it was opened with it. The router
 * replaces the fragment at once (`#/overview`), so without the kept copy a reload would present
 * no token and be refused. A new tab, another browser or a page with no token has none: the host
 * answers it nothing.
 */
export function webHostToken(location: Pick<Location, 'hash'>, storage: TokenStore | null = tabStorage()): string {
  const given = tokenInHash(location.hash)
  if (given) {
    try {
      storage?.setItem(TOKEN_KEY, given)
    } catch {
      // storage full or refused: this load still has the token
    }
    return given
  }
  try {
    return storage?.getItem(TOKEN_KEY) ?? ''
  } catch {
    return ''
  }
}

/**
 * The printed URL pasted into this same tab changes only the fragment (no page load): when it
 * carries another token (the host was started again) or the bridge is not connected, the page
 * loads again with it, so it reconnects to the running host.
 */
export function reloadOnPastedToken(win: Pick<Window, 'addEventListener' | 'location'>, bridge: DeskBridge, current: string): void {
  win.addEventListener('hashchange', () => {
    const given = tokenInHash(win.location.hash)
    if (!given) return
    const open = (bridge as DeskBridge & { socketState?: number }).socketState === 1
    if (given === current && open) return
    webHostToken(win.location)
    win.location.reload()
  })
}

/**
 * Gives the renderer the same `window.desk` API when it runs in a browser against the
 * loopback web host (end-to-end tests, development). The per-launch token comes from the
 * URL fragment (never sent in HTTP requests; kept in the tab's sessionStorage so a reload
 * reconnects) and is presented when the socket connects.
 */
export function createWebBridge(
  location: Pick<Location, 'hash' | 'host' | 'protocol'>,
  WebSocketCtor: typeof WebSocket = WebSocket,
  token: string = webHostToken(location),
): DeskBridge {
  const wsUrl = `${location.protocol === 'https:' ? 'wss' : 'ws'}://${location.host}/bridge?token=${encodeURIComponent(token)}`
  const pending = new Map<number, (value: unknown) => void>()
  const listeners = new Set<(event: string, payload: unknown) => void>()
  let nextId = 1
  let socket: WebSocket | null = null
  let opened: Promise<WebSocket> | null = null

  const failAll = (code: string, message: string) => {
    for (const resolve of pending.values()) resolve({ ok: false, error: { code, message } })
    pending.clear()
  }

  const connect = (): Promise<WebSocket> => {
    if (opened) return opened
    opened = new Promise((resolve) => {
      const ws = new WebSocketCtor(wsUrl)
      socket = ws
      ws.onopen = () => resolve(ws)
      ws.onmessage = (m) => {
        let msg: { id?: number; result?: unknown; event?: string; payload?: unknown }
        try {
          msg = JSON.parse(String(m.data)) as typeof msg
        } catch {
          return
        }
        if (typeof msg.id === 'number') {
          pending.get(msg.id)?.(msg.result)
          pending.delete(msg.id)
        } else if (typeof msg.event === 'string') {
          for (const l of listeners) l(msg.event, msg.payload)
        }
      }
      ws.onclose = () => {
        opened = null
        socket = null
        failAll(
          'HostDisconnected',
          token
            ? 'The connection to the desk host was closed or refused (the host stopped, or this token is from an earlier launch).'
            : 'The desk host refused the connection: this page has no token (open the URL `npm run web` printed).',
        )
        for (const l of listeners) l('host.disconnected', null)
        resolve(ws)
      }
    })
    return opened
  }

  return {
    host: 'web',
    async invoke(channel, args) {
      const ws = await connect()
      if (ws.readyState !== WebSocketCtor.OPEN) {
        return {
          ok: false,
          error: {
            code: 'HostDisconnected',
            message: token
              ? 'The desk host refused the connection or is not running (a token from an earlier launch, or a foreign origin).'
              : 'The desk host refused the connection: this page has no token (open the URL `npm run web` printed).',
          },
        }
      }
      const id = nextId++
      return new Promise((resolve) => {
        pending.set(id, resolve)
        ws.send(JSON.stringify({ id, channel, args }))
      })
    },
    on(listener) {
      listeners.add(listener)
      void connect()
      return () => listeners.delete(listener)
    },
    get socketState() {
      return socket?.readyState ?? -1
    },
  } as DeskBridge
}
