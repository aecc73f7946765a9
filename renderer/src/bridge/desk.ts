import type { ChannelArgs, ChannelName, ChannelResult, EventName, Events } from '../../../main/contract/channels'
import type { DeskBridge } from '../../../main/contract/bridge'
import type { ErrorData, Result } from '../../../main/contract/types'
import { createWebBridge } from './web-adapter'

/** A failed call, with the service's or the app's error code kept for display. */
export class DeskCallError extends Error {
  readonly code: string
  readonly details: ErrorData['details']
  constructor(error: ErrorData) {
    super(error.message)
    this.code = error.code
    this.details = error.details
  }
}

let bridge: DeskBridge | null = null

/** Electron's preload defines `window.desk`; in a browser the web adapter provides the same object. */
export function getBridge(): DeskBridge {
  if (!bridge) {
    bridge = window.desk ?? createWebBridge(window.location)
    window.desk = bridge
  }
  return bridge
}

/** Typed call of a contract channel; rejects with DeskCallError on `{ ok: false }`. */
export async function call<N extends ChannelName>(channel: N, ...args: ChannelArgs<N> extends undefined ? [] : [ChannelArgs<N>]): Promise<ChannelResult<N>> {
  const result = (await getBridge().invoke(channel, args[0])) as Result<ChannelResult<N>>
  if (!result || typeof result !== 'object' || !('ok' in result)) throw new DeskCallError({ code: 'BadReply', message: 'The host sent an unexpected reply.' })
  if (!result.ok) throw new DeskCallError(result.error)
  return result.value
}

/** Typed subscription to one pushed event. */
export function onEvent<E extends EventName>(event: E, listener: (payload: Events[E]) => void): () => void {
  return getBridge().on((name, payload) => {
    if (name === event) listener(payload as Events[E])
  })
}

/** Subscribes to host connectivity loss (web host only). */
export function onDisconnect(listener: () => void): () => void {
  return getBridge().on((name) => {
    if (name === 'host.disconnected') listener()
  })
}
