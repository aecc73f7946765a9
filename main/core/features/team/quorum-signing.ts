/**
 * The step before anything leaves or changes: under the proposal's execution lease (one row,
 * SELECT ... FOR UPDATE, one desk at a time) the chain is re-read through that transaction, the
 * quorum is counted against the verified roster and policy, the rows it rests on are re-read
 * (pinned-rows.ts), and the `signed` entry (the exact bytes, or the exact settings change) is
 * appended before they go. Exactly one desk succeeds per proposal; any other gets
 * TeamAlreadySigned carrying the stored bytes, to re-send, never a new signature.
 */
import { proposalStatus, type Proposal } from '../../team'
import { CONFLICT_RETRIES, isConflict, type GateContext } from './gate-context'
import { alreadySigned, leaseHeld, refused } from './gate-refusals'

/** The `signed` entry's nonce for bytes without an exchange nonce (earn requests, settings changes): the chain requires a non-empty one. */
export const NO_NONCE = 'none'

export interface ToSign {
  body: string
  nonce: string
  /** what the refusal of an unapproved proposal says did not happen, e.g. "nothing may be sent" */
  refusal: string
}

/** Stores `what` as the proposal's `signed` entry once its quorum is verified, and takes the execution lease. */
export async function signApproved(ctx: GateContext, p: Proposal, what: ToSign): Promise<void> {
  for (let attempt = 0; ; attempt++) {
    try {
      await ctx.store.withLease(p.id, async (tx, lease) => {
        const now = await ctx.syncVia(tx)
        const current = now.proposals.get(p.id)!
        if (current.signed) throw alreadySigned(current)
        if (lease.live && lease.holder !== ctx.deskId) throw leaseHeld(lease)
        const status = proposalStatus(current, now.roster!, ctx.now())
        if (status !== 'approved') throw refused(`proposal ${p.id.slice(0, 10)}… is ${status}: ${what.refusal}`)
        await ctx.chain.recheck(current, (seqs) => tx.readRows(seqs))
        const entry = await ctx.sign(now, 'signed', { proposal: p.id, body: what.body, nonce: what.nonce, at: ctx.now() })
        await tx.append(entry)
        await tx.take(ctx.deskId, ctx.leaseMs)
      })
      return
    } catch (e) {
      if (isConflict(e) && attempt < CONFLICT_RETRIES) continue
      throw e
    }
  }
}
