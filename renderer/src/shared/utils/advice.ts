/**
 * Advice shown next to a code: the renderer has no table of its own. It uses the one shared
 * table in main/contract/advice.ts, the same texts the core journals with outcomes.
 */
export { adviceFor } from '../../../../main/contract/advice'

/** Submission states that mean "do not resubmit, the desk is finding out". */
export function isUnresolved(state: string): boolean {
  return state === 'prepared' || state === 'sent' || state === 'unknown'
}
