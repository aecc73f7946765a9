/**
 * Names shared by the preload, the web adapter and the hosts. Dependency-free on purpose:
 * the sandboxed preload bundles this file and nothing else.
 */
export const INVOKE_CHANNEL = 'desk:invoke'
export const EVENT_CHANNEL = 'desk:event'

/** The object the renderer sees as `window.desk`. */
export interface DeskBridge {
  /** Calls a contract channel; always resolves with `{ ok, value }` or `{ ok: false, error }`. */
  invoke(channel: string, args?: unknown): Promise<unknown>
  /** Subscribes to pushed events; returns the unsubscribe function. */
  on(listener: (event: string, payload: unknown) => void): () => void
  readonly host: 'electron' | 'web'
}
