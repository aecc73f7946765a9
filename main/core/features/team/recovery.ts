/**
 * Finishing what a crashed desk left, one pass at a time: unsigned proposals past their expiry are
 * recorded expired; signed proposals with no final outcome whose execution lease expired are taken
 * over (this desk takes the lease, re-sends exactly the stored bytes, settles them, and appends the
 * outcome for every desk). A pass runs when the store opens, on every push, and on a slow timer.
 */
import { DeskError } from '../../errors/desk-error'
import { TeamErrors, isTeamUnreachable } from '../../team'
import type { TakeoverSender } from './takeover'
import type { TeamLink } from './team-link'

export interface RecoveryDeps {
  link: TeamLink
  /** Re-sends a signed proposal's stored bytes; without it this desk never takes over (it still records expiries). */
  takeover?: TakeoverSender | undefined
  /** The slow timer (pushes trigger a pass too). Default 15 s; 0: no recovery passes at all. */
  everyMs?: number | undefined
}

export class TeamRecovery {
  private recovering: Promise<void> | null = null
  private again = false
  private timer: NodeJS.Timeout | null = null

  constructor(private readonly d: RecoveryDeps) {}

  /** The store opened: a pass now (a desk restarting after a crash), then on the slow timer. */
  start(): void {
    if (this.d.everyMs === 0) return
    this.timer = setInterval(() => this.soon(), this.d.everyMs ?? 15_000)
    this.timer.unref?.()
    this.soon()
  }

  /** Stops the timer; resolves when a pass in flight has ended. */
  stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer)
    this.timer = null
    return this.recovering ?? Promise.resolve()
  }

  /** Runs one recovery pass unless one is running (then one more after it): never two at once. */
  soon(): void {
    if (!this.d.link.gate || this.d.link.isClosed || this.d.everyMs === 0) return
    if (this.recovering) {
      this.again = true
      return
    }
    this.recovering = this.pass()
      .catch((e: unknown) => {
        // An unreachable store is reported by the link state; the next pass (push or timer) retries.
        if (!isTeamUnreachable(e)) console.warn('team takeover pass failed:', e instanceof Error ? e.message : String(e))
      })
      .finally(() => {
        this.recovering = null
        if (this.again) {
          this.again = false
          this.soon()
        }
      })
  }

  /** A lease another desk holds, or a proposal this desk cannot send, is left alone. */
  private async pass(): Promise<void> {
    const link = this.d.link
    const gate = link.gate
    if (!gate || link.state !== 'live') return
    // No genesis yet, or the store went away: the link reports it; nothing to recover now.
    const state = await gate.sync().catch(() => null)
    if (!state) return
    const me = link.facts().me
    if (!me || !state.roster?.members.has(me)) return
    await gate.expireDue().catch(() => 0) // another desk may record the same expiry first
    const takeover = this.d.takeover
    if (!takeover) return
    for (const p of await gate.unsettled()) {
      if (link.gate !== gate || link.isClosed) return
      if (await takeover.cannotSend(p)) continue
      let stored
      try {
        stored = await gate.claimExpired(p.id)
      } catch (e) {
        if (e instanceof DeskError && e.code === TeamErrors.leaseHeld) continue
        throw e
      }
      if (!stored) continue
      const fresh = gate.report().state.proposals.get(p.id) ?? p
      const outcome = await takeover.resend(fresh, stored)
      await gate.recordOutcome(p.id, outcome)
    }
  }
}
