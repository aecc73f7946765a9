/**
 * A fake `window.desk` for component and store tests: channels answer from a handler table
 * (a missing handler answers NotAvailable, like the real host), and tests push events.
 */
import type { DeskBridge } from '../../../main/contract/bridge'
import type { ChannelArgs, ChannelName, ChannelResult, EventName, Events } from '../../../main/contract/channels'
import type { ErrorData } from '../../../main/contract/types'

type Handler<N extends ChannelName> = (args: ChannelArgs<N>) => ChannelResult<N> | Promise<ChannelResult<N>>

export class FakeDesk implements DeskBridge {
  readonly host = 'web' as const
  readonly calls: { channel: string; args: unknown }[] = []
  private handlers = new Map<string, (args: unknown) => unknown>()
  private listeners = new Set<(event: string, payload: unknown) => void>()

  handle<N extends ChannelName>(channel: N, handler: Handler<N>): this {
    this.handlers.set(channel, handler as (args: unknown) => unknown)
    return this
  }

  /** Makes a channel fail with a service error. */
  fail(channel: ChannelName, error: ErrorData): this {
    this.handlers.set(channel, () => {
      throw new FailWith(error)
    })
    return this
  }

  reset(): void {
    this.handlers.clear()
    this.calls.length = 0
  }

  callsTo(channel: ChannelName): unknown[] {
    return this.calls.filter((c) => c.channel === channel).map((c) => c.args)
  }

  async invoke(channel: string, args?: unknown): Promise<unknown> {
    this.calls.push({ channel, args })
    const h = this.handlers.get(channel)
    if (!h) return { ok: false, error: { code: 'NotAvailable', message: `${channel} is not available` } }
    try {
      return { ok: true, value: await h(args) }
    } catch (e) {
      if (e instanceof FailWith) return { ok: false, error: e.error }
      throw e
    }
  }

  on(listener: (event: string, payload: unknown) => void): () => void {
    this.listeners.add(listener)
    return () => this.listeners.delete(listener)
  }

  emit<E extends EventName>(event: E, payload: Events[E]): void {
    for (const l of this.listeners) l(event, payload)
  }
}

class FailWith extends Error {
  constructor(readonly error: ErrorData) {
    super(error.message)
  }
}

/** Installs one FakeDesk as `window.desk` (the bridge module caches the first one it sees). */
export function installFakeDesk(): FakeDesk {
  const w = globalThis as unknown as { window: { desk?: DeskBridge } }
  const existing = w.window.desk
  if (existing instanceof FakeDesk) {
    existing.reset()
    return existing
  }
  const fake = new FakeDesk()
  w.window.desk = fake
  return fake
}

export async function flush(): Promise<void> {
  for (let i = 0; i < 5; i++) await new Promise((r) => setTimeout(r, 0))
}
