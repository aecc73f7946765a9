/** What the exchange says of a proposal's write before it is signed (executed-check.ts), as the gate's context holds it. */
import type { WriteIntent } from '../../writes/decision'

/** What the exchange says of a cloid: executed (with its status) or not found, and what was read. */
export interface ExecutedRead {
  executed: boolean
  /** the exchange's status of the executed write (success or its execution error) */
  status: string | null
  /** whether that status is a success */
  succeeded: boolean
  /** the reads, for the chain's evidence */
  checks: string[]
}

export type ExecutedCheck = (intent: WriteIntent) => Promise<ExecutedRead>
