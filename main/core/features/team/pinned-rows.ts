/**
 * The pinned-row re-read. Chain verification is incremental, so a row edited, swapped or replaced
 * in the database below the head after this desk verified it would go unseen. The rows an execution
 * rests on (genesis, roster and policy entries, every proposal, approval and rejection) are pinned
 * as verified (digest and signatures, by seq) and read again before anything is signed.
 */
import type { Hex } from 'viem'
import { DeskError } from '../../errors/desk-error'
import { TeamErrors, entryDigest, type Proposal, type StoredRow } from '../../team'

const PINNED_KINDS = new Set(['genesis', 'roster', 'policy', 'custody', 'proposal', 'approval', 'rejection'])
const fingerprint = (r: StoredRow) => `${r.digest}|${r.signatures}`

function digestMatches(teamId: Hex, r: StoredRow): boolean {
  try {
    return entryDigest(teamId, { seq: r.seq, prev: r.prev as Hex, kind: r.kind as never, payload: r.payload }) === r.digest
  } catch {
    return false // a prev that is not even a digest
  }
}

export type RowsReader = (seqs: bigint[]) => Promise<StoredRow[]>

export class PinnedRows {
  private readonly pinned = new Map<bigint, { kind: string; print: string }>()
  /** A pinned row found changed: from then on this desk treats the chain as broken there. */
  changed: { seq: bigint; reason: string } | null = null

  /** Pins the verified rows of a read (those before the first broken entry, when there is one). */
  pin(rows: readonly StoredRow[], brokenSeq: bigint | undefined): void {
    for (const r of rows) {
      if (brokenSeq !== undefined && r.seq >= brokenSeq) break
      if (PINNED_KINDS.has(r.kind)) this.pinned.set(r.seq, { kind: r.kind, print: fingerprint(r) })
    }
  }

  /**
   * Reads again the rows `p`'s execution rests on (the roster and policy entries, the proposal, its
   * approvals) and refuses, TeamChainTampered naming the first, any that differs from what this desk
   * verified: edited (content no longer matching its digest), replaced, swapped or deleted.
   */
  async recheck(teamId: Hex, p: Proposal, read: RowsReader): Promise<void> {
    const mine = new Set([p.seq, ...p.approvals.map((a) => a.seq), ...(p.rejection ? [p.rejection.seq] : [])])
    const seqs = [...this.pinned].filter(
      ([seq, v]) => mine.has(seq) || v.kind === 'genesis' || v.kind === 'roster' || v.kind === 'policy' || v.kind === 'custody',
    )
    const rows = new Map((await read(seqs.map(([seq]) => seq))).map((r) => [r.seq, r]))
    for (const [seq, v] of seqs.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
      const r = rows.get(seq)
      const reason = !r
        ? 'the row is gone from the team store'
        : !digestMatches(teamId, r)
          ? 'content does not match its stored digest (the row was edited)'
          : fingerprint(r) !== v.print
            ? 'the row differs from the one this desk verified (replaced or moved in the database)'
            : null
      if (reason) {
        this.changed ??= { seq, reason }
        throw new DeskError(TeamErrors.tampered, `the team chain does not verify at entry ${seq}: ${reason}; nothing was signed or sent`, {
          seq: seq.toString(),
          reason,
        })
      }
    }
  }
}
