/** `desk team show`: the field review an approver reads first. */
import type { TeamProposalDetail } from '../../../contract/types'

/**
 * The review an approver reads first: each field once, as this desk decodes the exact action,
 * marked only where the initiator's reading differs (or this desk cannot read it); addresses with
 * the team's names for them (signed in its policy, the same on every desk).
 */
export function reviewLines(p: TeamProposalDetail): string[] {
  const named = (v: string | null) => {
    if (v === null) return '(not readable here)'
    const name = p.names[v.toLowerCase()]
    return name ? `${name} (${v})` : v
  }
  const width = Math.max(...p.review.map((f) => f.label.length))
  const lines = p.review.map((f) => {
    const mark =
      f.state === 'differs'
        ? `  DIFFERS: the initiator's preview says ${named(f.initiator)}`
        : f.state === 'unreadable'
          ? '  (this desk cannot read it; not a difference)'
          : ''
    return `  ${f.label.padEnd(width)}  ${named(f.mine ?? f.initiator)}${mark}${f.note ? `  [${f.note}]` : ''}`
  })
  const differs = p.review.filter((f) => f.state === 'differs').length
  const head =
    differs === 0
      ? "review (this desk's own decoding of the exact action; no field differs from the initiator's):"
      : `review: ${differs} field(s) differ from the initiator's preview; check them before approving:`
  const custody = p.custody
    ? [
        `custody: ${p.custody.threshold} of ${p.custody.holders.length} share holders sign` +
          (p.custody.mine ? '; approving releases a share for this write from this desk' : ''),
      ]
    : []
  return [head, ...lines, ...custody]
}
