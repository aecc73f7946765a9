import type { CreditHealthView } from '../../../contract/types'
import type { SettingsStore } from '../../config/settings'
import { DeskError } from '../../errors/desk-error'
import type { Lane } from '../../exchange/scheduler'
import type { EventHub } from '../../ipc/events'
import type { Submission } from '../../journal'
import type { NetworkSession, SessionHolder } from '../../session'
import { creditFor } from './credit-for-session'

export interface CreditLiveDeps {
  sessions: Pick<SessionHolder, 'onOpened' | 'current'>
  settings: SettingsStore
  events: EventHub
  now: () => number
  /** How often credit pages on screen are pushed again so their mark ages stay current (default 5 s). */
  heartbeatMs?: number
  /** Without streams: how long after a write ends its credit accounts are read again (default 1.5 s). */
  streamGraceMs?: number
}

/** A credit page asked for within this long counts as on screen. */
const ON_SCREEN_MS = 10 * 60_000
/** Pushes within this long of the first are gathered into one per account. */
const BATCH_MS = 50
/** Journal states that end a write. */
const FINAL = new Set(['accepted', 'rejected', 'reconciled', 'failed', 'unresolved'])
const ADDRESS_IN_TEXT = /0x[0-9a-fA-F]{40}(?![0-9a-fA-F])/g

/**
 * Credit health served live (`credit.health`) and pushed (`state.credit`): the streamed credit
 * state and cached marks when the stream has the account, /info otherwise. An account whose
 * credit health was asked for is followed for the session: pushed whenever its stream moves or a
 * write names it, and every few seconds while on screen. The streams learn which credit pages are
 * on screen through `onScreen` (the portfolio's stream priority reads it).
 */
export class CreditLive {
  private session: NetworkSession | null = null
  private readonly sessionOffs: (() => void)[] = []
  private readonly offOpened: () => void
  /** accounts whose credit health was asked for this session */
  private readonly followed = new Set<string>()
  /** when each was last asked for by the operator */
  private readonly askedAt = new Map<string, number>()
  private readonly screenListeners = new Set<() => void>()
  private readonly pending = new Set<string>()
  private pushTimer: ReturnType<typeof setTimeout> | null = null
  private heartbeatTimer: ReturnType<typeof setTimeout> | null = null
  private readonly graceTimers = new Set<ReturnType<typeof setTimeout>>()
  private closed = false
  /** Screen leases (features/screen): when set, credit pages on screen are the leased ones, not the recently asked. */
  private screen: { credits(): string[]; onChange(listener: () => void): () => void } | null = null
  private offScreen: () => void = () => {}

  constructor(private readonly d: CreditLiveDeps) {
    this.offOpened = d.sessions.onOpened((s) => this.attach(s))
  }

  /**
   * Credit pages on screen follow the screens' leases: pushed every few seconds while leased,
   * streamed first (through the portfolio's priority); a released page is no longer followed.
   */
  followScreen(screen: { credits(): string[]; onChange(listener: () => void): () => void }): void {
    this.screen = screen
    this.askedAt.clear()
    let leased = new Set(screen.credits())
    this.offScreen = screen.onChange(() => {
      const now = new Set(screen.credits())
      for (const u of leased) if (!now.has(u)) this.followed.delete(u)
      for (const u of now) if (!leased.has(u) && this.session) this.followed.add(u)
      leased = now
      this.screenChanged()
      if (now.size > 0) this.heartbeat()
    })
  }

  close(): void {
    this.closed = true
    this.offScreen()
    this.offOpened()
    this.detach()
    for (const t of [this.pushTimer, this.heartbeatTimer, ...this.graceTimers]) if (t) clearTimeout(t)
  }

  /** `credit.health`: the account is followed from now on and counts as on screen. */
  async health(address: string): Promise<CreditHealthView> {
    const s = await this.d.sessions.current()
    const user = address.toLowerCase()
    if (s === this.session) {
      this.followed.add(user)
      if (!this.screen) {
        this.askedAt.set(user, this.d.now())
        this.screenChanged()
        this.heartbeat()
      }
    }
    const view = await this.read(s, user, 'operator')
    if (!view) throw new DeskError('NotCreditAccount', `${user} has no credit line on ${s.network.name}`)
    return view
  }

  /** Credit pages on screen: the leased ones (without leases: asked for in the last ten minutes). */
  onScreen(): string[] {
    return this.screen ? this.screen.credits() : [...this.askedAt.keys()]
  }

  /** Called when the set of credit pages on screen changed. */
  onScreenChange(listener: () => void): () => void {
    this.screenListeners.add(listener)
    return () => this.screenListeners.delete(listener)
  }

  private attach(s: NetworkSession): void {
    this.detach()
    this.session = s
    this.followed.clear()
    this.askedAt.clear()
    for (const u of this.screen?.credits() ?? []) this.followed.add(u)
    if (s.pool) {
      this.sessionOffs.push(
        s.pool.subscribe((u) => {
          if (this.followed.has(u.user)) this.pushSoon([u.user])
        }),
      )
    }
    this.sessionOffs.push(
      s.journal.onChange((sub) => {
        if (sub.network === s.name) this.onWrite(s, sub)
      }),
    )
  }

  private detach(): void {
    for (const off of this.sessionOffs.splice(0)) off()
  }

  /** Streams first (the credit frame and cached marks, no request); /info without them. Null: no credit line. */
  private async read(s: NetworkSession, user: string, lane: Lane): Promise<CreditHealthView | null> {
    const credit = creditFor(s, this.d.settings)
    const md = await s.market.recent(lane)
    const live = credit.healthLive(user, md)
    return live === undefined ? credit.health(user, lane) : live
  }

  /**
   * A write naming a followed account (its own, or in its body: a settle's or repay's credit
   * account) pushes it at once; with streams, the write's follow-up refresh (the portfolio's, in
   * the reconcile lane) moves the stream state, which pushes it again. Without streams, one read
   * follows a short grace after the write ends.
   */
  private onWrite(s: NetworkSession, sub: Submission): void {
    if (this.closed || this.followed.size === 0) return
    const users = new Set<string>()
    const own = sub.account.toLowerCase()
    if (this.followed.has(own)) users.add(own)
    for (const m of sub.body.matchAll(ADDRESS_IN_TEXT)) if (this.followed.has(m[0].toLowerCase())) users.add(m[0].toLowerCase())
    if (users.size === 0) return
    this.pushSoon([...users])
    if (s.pool || sub.channel !== 'trade' || !FINAL.has(sub.state)) return
    const t = setTimeout(() => {
      this.graceTimers.delete(t)
      this.pushSoon([...users])
    }, this.d.streamGraceMs ?? 1500)
    this.graceTimers.add(t)
  }

  private pushSoon(users: readonly string[]): void {
    if (this.closed) return
    for (const u of users) this.pending.add(u.toLowerCase())
    if (this.pushTimer) return
    this.pushTimer = setTimeout(() => {
      this.pushTimer = null
      const s = this.session
      const batch = [...this.pending]
      this.pending.clear()
      if (s) for (const u of batch) void this.push(s, u)
    }, BATCH_MS)
  }

  private async push(s: NetworkSession, user: string): Promise<void> {
    try {
      const view = await this.read(s, user, 'background')
      if (view && s === this.session && !this.closed) this.d.events.emit('state.credit', view)
    } catch {
      // The next change pushes again; the page keeps its last values with their age.
    }
  }

  /** Marks age while nothing moves: pages on screen are pushed again every few seconds (from live state). */
  private heartbeat(): void {
    if (this.heartbeatTimer || this.closed) return
    this.heartbeatTimer = setTimeout(() => {
      this.heartbeatTimer = null
      const now = this.d.now()
      let gone = false
      for (const [u, at] of this.askedAt) {
        if (now - at <= ON_SCREEN_MS) continue
        this.askedAt.delete(u)
        gone = true
      }
      if (gone) this.screenChanged()
      const onScreen = this.onScreen()
      if (onScreen.length === 0) return
      this.pushSoon(onScreen)
      this.heartbeat()
    }, this.d.heartbeatMs ?? 5000)
  }

  private screenChanged(): void {
    for (const l of this.screenListeners) l()
  }
}
