/**
 * While the bytes this desk stored are being sent (resends of the same bytes included), its lease
 * is renewed every third of its length, so no other desk takes over a send still in progress. A
 * renewal that finds the lease already run out stops: a takeover may be under way, and the
 * exchange's nonce rules keep the two sends of the same bytes to one transaction.
 */
import type { TeamStore } from '../../team'

export class LeaseRenewal {
  /** Proposals whose signed bytes this desk stored under its lease (by cloid), until their send ends. */
  private readonly leased = new Map<string, string>()

  constructor(
    private readonly store: TeamStore,
    private readonly deskId: string,
    private readonly leaseMs: number,
  ) {}

  /** This desk stored the bytes of proposal `proposalId` (the write's cloid) under its lease. */
  held(cloid: string, proposalId: string): void {
    this.leased.set(cloid, proposalId)
  }

  /** Renews the lease of the write's proposal until the returned stop is called (nothing to do for a write not under one). */
  sending(cloid: string): () => void {
    const id = this.leased.get(cloid)
    if (id === undefined) return () => {}
    const ms = this.leaseMs
    const timer = setInterval(
      () => {
        this.store.renewLease(id, this.deskId, ms).then(
          (held) => void (held || clearInterval(timer)),
          () => undefined, // store unreachable: the lease runs out; a takeover re-sends the same bytes
        )
      },
      Math.max(1, Math.floor(ms / 3)),
    )
    timer.unref?.()
    return () => {
      clearInterval(timer)
      this.leased.delete(cloid)
    }
  }
}
