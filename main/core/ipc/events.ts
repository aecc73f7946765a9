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
