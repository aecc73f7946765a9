import type { Clock } from './clock'
import type { MinuteConnectBudget } from './connect-budget'
import { StreamConnection } from './connection'
import type { Frame } from './frames'
import { subscriptionKey, type Subscription } from './plan'
import type { StreamPoolOptions } from './pool-options'

/** What one of the pool's sockets hands back to the pool. */
export interface PoolSocketHooks {
  clock: Clock
  budget: MinuteConnectBudget
  onFrame: (f: Frame, text: string) => void
  onLiveEnd: (subs: readonly Subscription[], at: number) => void
  onInterrupted: (subs: readonly Subscription[]) => void
  onText: (text: string) => boolean
  /** The socket came back after a drop (its own subscriptions are to be backfilled). */
  onReconnect: (c: StreamConnection) => void
  onProblem: (text: string) => void
  onStateChange: () => void
}

/** One socket of the pool for these subscriptions (not started). */
export function poolSocket(opts: StreamPoolOptions, subs: Subscription[], h: PoolSocketHooks): StreamConnection {
  const c: StreamConnection = new StreamConnection({
    url: opts.wsUrl,
    subscriptions: subs,
    clock: h.clock,
    random: opts.random,
    pingIntervalMs: opts.pingIntervalMs,
    silenceMs: opts.silenceMs,
    pongTimeoutMs: opts.pongTimeoutMs,
    backoffBaseMs: opts.backoffBaseMs,
    backoffMaxMs: opts.backoffMaxMs,
    maxFrameBytes: opts.maxFrameBytes,
    createSocket: opts.createSocket,
    connectBudget: h.budget,
    onFrame: h.onFrame,
    onLiveEnd: h.onLiveEnd,
    onInterrupted: h.onInterrupted,
    onText: h.onText,
    onOpen: ({ reconnect }) => {
      if (!reconnect) return
      h.onReconnect(c)
    },
    onProblem: h.onProblem,
    onStateChange: h.onStateChange,
  })
  return c
}

/** Each topic's socket (the first that carries it). */
export function topicsOf(conns: readonly StreamConnection[]): Map<string, StreamConnection> {
  const topics = new Map<string, StreamConnection>()
  for (const c of conns) for (const sub of c.subscriptions) if (!topics.has(subscriptionKey(sub))) topics.set(subscriptionKey(sub), c)
  return topics
}

/** Calls every listener; one that throws is reported (its message) and does not stop the others. */
export function callEach<L>(listeners: Iterable<L>, call: (l: L) => void, failed: (message: string) => void): void {
  for (const l of listeners) {
    try {
      call(l)
    } catch (e) {
      failed(e instanceof Error ? e.message : String(e))
    }
  }
}
