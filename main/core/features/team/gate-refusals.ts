/** The team gate's typed refusals, shared by its steps so each says the same thing the same way. */
import { DeskError } from '../../errors/desk-error'
import { TeamErrors, type Proposal } from '../../team'
import type { WriteDecision } from '../../writes/decision'

export const refused = (message: string) => new DeskError(TeamErrors.refused, message)

/** A write the decision step turns away (not thrown: the pipeline records it as blocked). */
export const block = (code: string, reason: string): WriteDecision => ({ verdict: 'block', code, reason })

/** The proposal already has stored bytes: they carry in the error, to be re-sent, never re-signed. */
export function alreadySigned(p: Proposal): DeskError {
  const s = p.signed!
  return new DeskError(
    TeamErrors.alreadySigned,
    `proposal ${p.id.slice(0, 10)}… was already signed (entry ${s.seq}): re-send its stored bytes, never a new signature`,
    {
      proposalId: p.id,
      body: s.body,
      nonce: s.nonce,
      by: s.by,
    },
  )
}

export function leaseHeld(lease: { holder: string | null; expiresAt: Date | null }): DeskError {
  return new DeskError(TeamErrors.leaseHeld, `desk ${lease.holder} holds the execution lease of this proposal`, {
    holder: lease.holder,
    expiresAt: lease.expiresAt?.toISOString() ?? null,
  })
}
