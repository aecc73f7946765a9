/**
 * Typed failures of team mode. "Unreachable" is kept apart from everything else: a desk that
 * cannot reach the team store refuses team writes and says so, and loses nothing.
 */
import { DeskError, type DeskErrorDetails } from '../errors/desk-error'

export const TeamErrors = {
  /** The team store cannot be reached (refused, reset, timed out, shut down). Retry later. */
  unreachable: 'TeamStoreUnreachable',
  /** Input to a team call is malformed (a connection string, a roster change, a rule). */
  badInput: 'TeamBadInput',
  /** Another desk appended at the same sequence number first: re-read the chain and retry. */
  conflict: 'TeamChainConflict',
  /** The chain does not verify: the first bad entry is in the details. */
  tampered: 'TeamChainTampered',
  /**
   * The store's chain is shorter than the head this desk verified before, or differs at it: rows
   * were deleted or rewritten (a rollback or a fork). Details name both heads; every team write is
   * refused until the store holds the kept head again.
   */
  rolledBack: 'TeamChainRolledBack',
  /** The exchange already executed this proposal's cloid: its outcome is recorded, nothing is signed. */
  alreadyExecuted: 'TeamAlreadyExecuted',
  /** A proposal, approval, rejection or execution the verified chain does not allow (reason in the message). */
  refused: 'TeamProposalRefused',
  /** The proposal's signed bytes are already stored: re-send those (details.body, details.nonce), never sign again. */
  alreadySigned: 'TeamAlreadySigned',
  /** Another desk holds the execution lease of this proposal until details.expiresAt. */
  leaseHeld: 'TeamLeaseHeld',
  /** The team store answered with an error that is neither of the above. */
  storeFailed: 'TeamStoreFailed',
} as const

export function teamBadInput(message: string, details?: DeskErrorDetails): DeskError {
  return new DeskError(TeamErrors.badInput, message, details)
}

export function isTeamUnreachable(e: unknown): boolean {
  return e instanceof DeskError && e.code === TeamErrors.unreachable
}
