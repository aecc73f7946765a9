import type { Address } from '../../../contract/types'
import type { EventHub } from '../../ipc/events'
import type { NetworkSession, SessionHolder } from '../../session'
import type { AgentKeyDirectory } from './agents-read.service'
import { agentsFor } from './agents-for-session'

export interface AgentsLiveDeps {
  sessions: Pick<SessionHolder, 'onOpened'>
  keys: AgentKeyDirectory
  events: EventHub
  now: () => number
}

/** An agents page shown within this long is read again after a reconnect. */
const ON_SCREEN_MS = 10 * 60_000
/** Journal states that end a write. */
const FINAL = new Set(['accepted', 'rejected', 'reconciled', 'failed', 'unresolved'])

/**
 * Agent slots are not streamed: after an agent write ends, its owner's slots are read once (in
 * the background lane; the read updates last-known state, which the overview's agent count
 * comes from) and pushed as `state.agents`; after a reconnect, the owners whose agents page was
 * on screen are read again. Whoever else needs to know (the overview) subscribes to `onSlots`.
 */
export class AgentsLive {
  private session: NetworkSession | null = null
  private readonly sessionOffs: (() => void)[] = []
  private readonly offOpened: () => void
  /** owners whose agent slots were shown, and when */
  private readonly onScreen = new Map<string, number>()
  private readonly listeners = new Set<(owner: string) => void>()
  private closed = false

  constructor(private readonly d: AgentsLiveDeps) {
    this.offOpened = d.sessions.onOpened((s) => this.attach(s))
  }

  close(): void {
    this.closed = true
    this.offOpened()
    this.detach()
  }

  /** The slots of `owner` went to the screen (an `agents.*` call): read again after a reconnect. */
  shown(owner: string): void {
    this.onScreen.set(owner.toLowerCase(), this.d.now())
  }

  /** Called with the owner after each follow-up read of its slots was pushed. */
  onSlots(listener: (owner: string) => void): () => void {
    this.listeners.add(listener)
    return () => this.listeners.delete(listener)
  }

  private attach(s: NetworkSession): void {
    this.detach()
    this.session = s
    this.sessionOffs.push(
      s.journal.onChange((sub) => {
        if (sub.network === s.name && sub.channel === 'trade' && FINAL.has(sub.state) && /agent/i.test(sub.actionType))
          this.push(s, sub.account)
      }),
    )
    if (s.pool) this.sessionOffs.push(s.pool.onReconnect(() => this.reconciled(s)))
  }

  private detach(): void {
    for (const off of this.sessionOffs.splice(0)) off()
  }

  /** One background read of the slots, pushed; then the listeners. */
  private push(s: NetworkSession, owner: string): void {
    if (this.closed) return
    void agentsFor(s, this.d.keys)
      .slots(owner, 'background')
      .then((slots) => {
        if (s !== this.session || this.closed) return
        const o = owner.toLowerCase()
        this.d.events.emit('state.agents', { owner: o as Address, slots, fetchedAt: this.d.now() })
        for (const l of this.listeners) l(o)
      })
      .catch(() => {})
  }

  /** After a reconnect: the slots of every owner whose agents page was open are read again. */
  private reconciled(s: NetworkSession): void {
    const now = this.d.now()
    for (const [owner, at] of this.onScreen) {
      if (now - at > ON_SCREEN_MS) this.onScreen.delete(owner)
      else this.push(s, owner)
    }
  }
}
