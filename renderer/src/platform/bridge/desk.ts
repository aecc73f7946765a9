import type { ChannelArgs, ChannelName, ChannelResult, EventName, Events } from '../../../../main/contract/channels'
import type { DeskBridge } from '../../../../main/contract/bridge'
import type { Result } from '../../../../main/contract/types'
import { DeskCallError } from '../../shared/desk-call-error'

export { DeskCallError }

let bridge: DeskBridge | null = null

/**
 * The host's bridge, `window.desk`: Electron's preload defines it; the web build's entry
 * (platform/web/main.ts) installs the WebSocket adapter as `window.desk` before the app
 * starts. This module never imports the web adapter, so the Electron bundle does not carry it.
 */
export function getBridge(): DeskBridge {
  if (!bridge) {
    if (!window.desk)
      throw new DeskCallError({
        code: 'NoBridge',
        message: 'The desk bridge is missing: start the renderer from the desk (Electron) or the web host.',
      })
    bridge = window.desk
  }
  return bridge
}

/** Typed call of a contract channel; rejects with DeskCallError on `{ ok: false }`. */
export async function call<N extends ChannelName>(
  channel: N,
  ...args: ChannelArgs<N> extends undefined ? [] : [ChannelArgs<N>]
): Promise<ChannelResult<N>> {
  const result = (await getBridge().invoke(channel, args[0])) as Result<ChannelResult<N>>
  if (!result || typeof result !== 'object' || !('ok' in result))
    throw new DeskCallError({ code: 'BadReply', message: 'The host sent an unexpected reply.' })
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
