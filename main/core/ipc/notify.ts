import type { NotificationEvent } from '../../contract/types'
import type { EventHub } from './events'

/** Pushes one operator notification (the app's panel, desktop notifications). */
export type Notify = (kind: NotificationEvent['kind'], level: NotificationEvent['level'], title: string, message: string) => void

export function notifier(events: EventHub, now: () => number): Notify {
  let seq = 0
  return (kind, level, title, message) => {
    seq++
    events.emit('notify', { id: `${now()}-${seq}`, kind, level, title, message, atMs: now() })
  }
}
