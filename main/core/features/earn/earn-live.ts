import type { EarnOverviewView } from '../../../contract/types'
import type { EventHub } from '../../ipc/events'
import type { Submission } from '../../journal'
import type { NetworkSession, SessionHolder } from '../../session'
import { earnOverview } from './earn.service'
import { earnOverviewView } from './earn.views'

export interface EarnLiveDeps {
  sessions: Pick<SessionHolder, 'onOpened'>
  events: EventHub
  now: () => number
  /** How often a non-final earn withdrawal is re-read (default 2 s). */
  earnPollMs?: number
  /** How often an earn page on screen is re-read when nothing moves (default 10 s; the earn API has no stream). */
  earnSlowPollMs?: number
}

/** An earn page asked for within this long counts as on screen. */
const ON_SCREEN_MS = 10 * 60_000
/** After an earn write, its account is re-read quickly for this long. */
const AFTER_WRITE_MS = 30_000
/** Earn withdrawal statuses the pool moves on its own (spec: created → … → completed / claimed). */
const EARN_MOVING = new Set(['created', 'authorizing', 'authorized', 'transferring'])
const ADDRESS_IN_TEXT = /0x[0-9a-fA-F]{40}(?![0-9a-fA-F])/g

interface Followed {
  /** re-read quickly until then (a write, a moving withdrawal, a claim time near) */
  until: number
  /** what was last shown, to push only changes */
  key: string
  /** re-read slowly until then (the operator's earn page) */
  onScreenUntil: number
  readAt: number
}

/**
 * The earn pool's live follow-up. The earn API has no stream, so an account whose earn page the
 * operator opened is re-read slowly while on screen (`earnSlowPollMs`), and quickly after its
 * earn writes and while a withdrawal moves on its own or a claim time is near; a change is
 * pushed (`state.earn`). Writes are learnt from the journal of the session it follows.
 */
export class EarnLive {
  private session: NetworkSession | null = null
  private readonly sessionOffs: (() => void)[] = []
  private readonly offOpened: () => void
  private readonly followed = new Map<string, Followed>()
  private timer: ReturnType<typeof setTimeout> | null = null
  private due = 0
  private busy = false
  private closed = false

  constructor(private readonly d: EarnLiveDeps) {
    this.offOpened = d.sessions.onOpened((s) => this.attach(s))
  }

  close(): void {
    this.closed = true
    this.offOpened()
    this.detach()
    if (this.timer) clearTimeout(this.timer)
  }

  /** An earn overview the operator asked for (and was pushed): its account is followed while on screen. */
  shown(v: EarnOverviewView): void {
    this.note(v, false)
  }

  private attach(s: NetworkSession): void {
    this.detach()
    this.session = s
    this.followed.clear()
    this.sessionOffs.push(
      s.journal.onChange((sub) => {
        if (sub.network === s.name && sub.channel === 'earn') this.onWrite(sub)
      }),
    )
  }

  private detach(): void {
    for (const off of this.sessionOffs.splice(0)) off()
  }

  /** Every change of an earn write: its account (and any followed account its body names) is re-read soon. */
  private onWrite(sub: Submission): void {
    if (this.closed) return
    const users = new Set([sub.account.toLowerCase()])
    for (const m of sub.body.matchAll(ADDRESS_IN_TEXT)) if (this.followed.has(m[0].toLowerCase())) users.add(m[0].toLowerCase())
    for (const u of users) {
      const prev = this.followed.get(u)
      this.followed.set(u, {
        until: this.d.now() + AFTER_WRITE_MS,
        key: prev?.key ?? '',
        onScreenUntil: prev?.onScreenUntil ?? 0,
        readAt: prev?.readAt ?? 0,
      })
    }
    this.soon(200)
  }

  /** An overview seen, by the screen (`self` false) or by a pass of ours: extends or ends the follow. */
  private note(v: EarnOverviewView, self: boolean): void {
    const user = v.address.toLowerCase()
    const now = this.d.now()
    const prev = this.followed.get(user)
    const moving = v.withdrawals.some((w) => EARN_MOVING.has(w.status))
    const nextClaimable = v.withdrawals.reduce<number | null>(
      (m, w) =>
        w.status === 'queued' && !w.canClaim && w.claimableAt !== null && w.claimableAt > now ? Math.min(m ?? Infinity, w.claimableAt) : m,
      null,
    )
    const until = Math.max(
      prev?.until ?? 0,
      moving ? now + 120_000 : 0,
      nextClaimable !== null && nextClaimable - now < 600_000 ? nextClaimable + 1000 : 0,
    )
    const onScreenUntil = self ? (prev?.onScreenUntil ?? 0) : now + ON_SCREEN_MS
    this.followed.set(user, { until, key: earnKey(v), onScreenUntil, readAt: self ? now : (prev?.readAt ?? now) })
    if (until > now) this.soon(this.d.earnPollMs ?? 2000)
    else if (onScreenUntil > now) this.soon(this.d.earnSlowPollMs ?? 10_000)
  }

  private soon(ms: number): void {
    if (this.closed) return
    const due = this.d.now() + ms
    if (this.timer) {
      // Keep the earlier of the two passes.
      if (due >= this.due) return
      clearTimeout(this.timer)
    }
    this.due = due
    this.timer = setTimeout(() => {
      this.timer = null
      void this.pass()
    }, ms)
  }

  /** Re-reads the earn accounts still followed and pushes those that changed. */
  private async pass(): Promise<void> {
    const s = this.session
    if (!s || this.closed || this.busy) return
    this.busy = true
    const slowMs = this.d.earnSlowPollMs ?? 10_000
    try {
      let w
      try {
        w = s.write()
      } catch {
        return // no vault: nothing of the earn pool is shown either
      }
      const now = this.d.now()
      for (const [user, e] of [...this.followed]) {
        const fast = e.until > now
        const slow = e.onScreenUntil > now && now - e.readAt >= slowMs - 50
        if (!fast && !slow) continue
        try {
          const view = earnOverviewView(await earnOverview(w.earnCtx, user), this.d.now())
          if (s !== this.session || this.closed) return
          if (earnKey(view) !== e.key) this.d.events.emit('state.earn', view)
          this.note(view, true)
        } catch {
          // Retried on the next pass while followed.
        }
      }
    } finally {
      this.busy = false
      const now = this.d.now()
      const list = [...this.followed.values()]
      if (list.some((e) => e.until > now)) this.soon(this.d.earnPollMs ?? 2000)
      else if (list.some((e) => e.onScreenUntil > now)) this.soon(slowMs)
    }
  }
}

function earnKey(v: EarnOverviewView): string {
  return JSON.stringify([
    v.paused,
    v.assets.map((a) => [a.assetId, a.earnBalance, a.inQueueBalance, a.withdrawLockedBalance]),
    v.withdrawals.map((w) => [w.operationId, w.status, w.canClaim, w.canCancel]),
  ])
}
