import type { DeskBridge } from '../../../../main/contract/bridge'

/**
 * Gives the renderer the same `window.desk` API when it runs in a browser against the
 * loopback web host (end-to-end tests, development). The per-launch token comes from the
 * URL fragment (never sent in HTTP requests) and is presented when the socket connects.
 */
export function createWebBridge(location: Location, WebSocketCtor: typeof WebSocket = WebSocket): DeskBridge {
  const token = new URLSearchParams(location.hash.replace(/^#/, '')).get('token') ?? ''
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
        failAll('HostDisconnected', 'The connection to the desk host was closed or refused (is the token in the URL right?).')
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
          error: { code: 'HostDisconnected', message: 'The desk host refused the connection (missing or wrong token, or foreign origin).' },
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
