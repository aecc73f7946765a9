/**
 * The team chain as this desk verified it: every read goes through the incremental verifier, one
 * read at a time and in order (it must see each row once), and the rows an execution rests on are
 * pinned for the re-read before signing (pinned-rows.ts). A broken chain refuses everything after:
 * TeamChainTampered names the first bad entry.
 */
import type { Hex } from 'viem'
import { DeskError } from '../../errors/desk-error'
import { ChainVerifier, TeamErrors, type Proposal, type StoredRow, type TeamState } from '../../team'
import { refused } from './gate-refusals'
import { PinnedRows, type RowsReader } from './pinned-rows'

export class VerifiedChain {
  private readonly verifier: ChainVerifier
  private readonly pins = new PinnedRows()
  private queue: Promise<unknown> = Promise.resolve()

  constructor(genesisDigest: Hex | undefined) {
    this.verifier = new ChainVerifier({ genesisDigest })
  }

  /** The chain as last verified (no read); `broken` names the first bad entry, a changed pinned row included. */
  report(): ReturnType<ChainVerifier['report']> {
    const r = this.verifier.report()
    const changed = this.pins.changed
    return changed && !r.broken ? { ...r, ok: false, broken: changed } : r
  }

  /** Verifies the rows `read` returns after the last verified one; a broken chain throws TeamChainTampered. */
  sync(read: (fromSeq: bigint) => Promise<StoredRow[]>): Promise<TeamState> {
    const run = this.queue
      .catch(() => undefined)
      .then(async () => {
        const head = this.verifier.report().state.head
        const rows = await read(head ? head.seq + 1n : 0n)
        const report = await this.verifier.add(rows)
        this.pins.pin(rows, report.broken?.seq)
        return this.check(report)
      })
    this.queue = run
    return run
  }

  /** The pinned-row re-read of `p` against the last verified state's team (see pinned-rows.ts). */
  recheck(p: Proposal, read: RowsReader): Promise<void> {
    return this.pins.recheck(this.verifier.report().state.roster!.teamId, p, read)
  }

  private check(report: ReturnType<ChainVerifier['report']>): TeamState {
    const broken = report.broken ?? this.pins.changed
    if (broken) {
      const { seq, reason } = broken
      throw new DeskError(TeamErrors.tampered, `the team chain does not verify at entry ${seq}: ${reason}`, { seq: seq.toString(), reason })
    }
    if (!report.state.roster) throw refused('the team chain has no genesis yet')
    return report.state
  }
}
