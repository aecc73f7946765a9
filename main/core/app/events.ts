import type { EventName, Events } from '../../contract/channels'

export type EventListener = <E extends EventName>(event: E, payload: Events[E]) => void

/** Fan-out of pushed events to whatever hosts are attached (Electron window, web sockets). */
export class EventHub {
  private readonly listeners = new Set<EventListener>()

  subscribe(listener: EventListener): () => void {
    this.listeners.add(listener)
    return () => this.listeners.delete(listener)
  }

  emit<E extends EventName>(event: E, payload: Events[E]): void {
    for (const l of this.listeners) {
      try {
        l(event, payload)
      } catch {
        // A failing sink (closed socket, destroyed window) must not stop the others.
      }
    }
  }
}

/**
 * Coalesces bursts per topic: the latest payload is delivered at most once per `intervalMs`,
 * so the renderer gets a few updates per second, not every stream frame.
 */
export class Coalescer<T> {
  private pending = new Map<string, T>()
  private timers = new Map<string, ReturnType<typeof setTimeout>>()
  private last = new Map<string, number>()

  constructor(
    private readonly intervalMs: number,
    private readonly deliver: (topic: string, value: T) => void,
    private readonly now: () => number = Date.now,
  ) {}

  push(topic: string, value: T): void {
    this.pending.set(topic, value)
    if (this.timers.has(topic)) return
    const wait = Math.max(0, (this.last.get(topic) ?? -Infinity) + this.intervalMs - this.now())
    this.timers.set(
      topic,
      setTimeout(() => this.flush(topic), wait),
    )
  }

  private flush(topic: string): void {
    this.timers.delete(topic)
    const value = this.pending.get(topic)
    if (value === undefined) return
    this.pending.delete(topic)
    this.last.set(topic, this.now())
    this.deliver(topic, value)
  }

  close(): void {
    for (const t of this.timers.values()) clearTimeout(t)
    this.timers.clear()
    this.pending.clear()
  }
}
