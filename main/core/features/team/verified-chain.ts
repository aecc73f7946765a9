/**
 * The team chain as this desk verified it: every read goes through the incremental verifier, one
 * read at a time and in order (it must see each row once), and the rows an execution rests on are
 * pinned for the re-read before signing (pinned-rows.ts). A broken chain refuses everything after:
 * TeamChainTampered names the first bad entry.
 *
 * The highest head this desk ever verified is kept (binding.ts, sealed in the vault) and never
 * lowered. Every read starts at the head verified so far, which must still be there unchanged; and
 * once the store's rows are read, the chain must reach the kept head with the same digest. A chain
 * cut at its tail (its `signed` and `outcome` rows deleted, say) or rewritten there is a rollback or
 * a fork: TeamChainRolledBack names both heads, and every team write is refused from then on.
 */
import type { Hex } from 'viem'
import { DeskError } from '../../errors/desk-error'
import { ChainVerifier, TeamErrors, type Proposal, type StoredRow, type TeamState } from '../../team'
import type { ChainHead } from './binding'
import { refused } from './gate-refusals'
import { PinnedRows, type RowsReader } from './pinned-rows'

/** Where this desk keeps the highest head it verified (the vault's team binding). */
export interface HeadKeeper {
  /** the kept head, or null before the first verification */
  kept(): ChainHead | null
  /** keeps `head` when higher than the kept one (never lowers it) */
  keep(head: ChainHead): Promise<void>
}

export interface Rollback {
  /** the head this desk verified before */
  kept: ChainHead
  /** what the store holds now: its last row (null: none), or the row found at the kept seq */
  store: ChainHead | null
  reason: string
}

const short = (h: ChainHead | null) => (h ? `entry ${h.seq} (${h.digest.slice(0, 10)}…)` : 'no entry')

export function rollbackError(r: Rollback): DeskError {
  return new DeskError(
    TeamErrors.rolledBack,
    `the team chain was rolled back or forked: this desk verified ${short(r.kept)}, the store now ${r.reason} (its head: ${short(r.store)}). Every ` +
      `team write is refused; an administrator restores the deleted or changed rows (a backup of the store), or the team investigates who changed them.`,
    {
      keptSeq: r.kept.seq.toString(),
      keptDigest: r.kept.digest,
      storeSeq: r.store?.seq.toString() ?? null,
      storeDigest: r.store?.digest ?? null,
      reason: r.reason,
    },
  )
}

export class VerifiedChain {
  private readonly verifier: ChainVerifier
  private readonly pins = new PinnedRows()
  private queue: Promise<unknown> = Promise.resolve()
  private rollback: Rollback | null = null

  constructor(
    genesisDigest: Hex | undefined,
    private readonly keeper: HeadKeeper | null = null,
  ) {
    this.verifier = new ChainVerifier({ genesisDigest })
  }

  /** The chain as last verified (no read); `broken` names the first bad entry, a changed pinned row or a rollback included. */
  report(): ReturnType<ChainVerifier['report']> & { rollback: Rollback | null } {
    const r = this.verifier.report()
    const changed = this.pins.changed
    const rb = this.rollback
    if (r.broken) return { ...r, rollback: rb }
    if (changed) return { ...r, ok: false, broken: changed, rollback: rb }
    if (rb) return { ...r, ok: false, broken: { seq: rb.kept.seq, reason: rollbackError(rb).message }, rollback: rb }
    return { ...r, rollback: null }
  }

  /** Verifies the rows `read` returns from the last verified one on; a broken chain throws TeamChainTampered, a rollback TeamChainRolledBack. */
  sync(read: (fromSeq: bigint) => Promise<StoredRow[]>): Promise<TeamState> {
    const run = this.queue
      .catch(() => undefined)
      .then(async () => {
        if (this.rollback) throw rollbackError(this.rollback)
        const head = this.verifier.report().state.head
        // The head verified so far is read again with what follows: deleted or rewritten, it is a rollback.
        const rows = await read(head ? head.seq : 0n)
        if (head) {
          const first = rows[0]
          if (!first || first.seq !== head.seq || first.digest.toLowerCase() !== head.digest) {
            const at = first && first.seq === head.seq ? { seq: first.seq, digest: first.digest as Hex } : null
            const store = at ?? (await this.storeHead(read))
            throw this.rolledBack(head, store, at ? `holds another entry there` : 'holds no such entry (rows were deleted)')
          }
          rows.shift()
        }
        const report = await this.verifier.add(rows)
        this.pins.pin(rows, report.broken?.seq)
        const state = this.check(report)
        await this.againstKept(rows, state)
        return state
      })
    this.queue = run
    return run
  }

  /** The pinned-row re-read of `p` against the last verified state's team (see pinned-rows.ts). */
  recheck(p: Proposal, read: RowsReader): Promise<void> {
    return this.pins.recheck(this.verifier.report().state.roster!.teamId, p, read)
  }

  /** The verified chain must reach the kept head, with its digest; then a higher head is kept. */
  private async againstKept(rows: readonly StoredRow[], state: TeamState): Promise<void> {
    if (!this.keeper || !state.head) return
    const kept = this.keeper.kept()
    if (kept) {
      const at = rows.find((r) => r.seq === kept.seq)
      if (at && at.digest.toLowerCase() !== kept.digest.toLowerCase())
        throw this.rolledBack(kept, { seq: at.seq, digest: at.digest as Hex }, 'holds another entry there (the chain was rewritten)')
      if (state.head.seq < kept.seq) throw this.rolledBack(kept, state.head, `ends before it (rows were deleted)`)
      if (state.head.seq === kept.seq) return
    }
    await this.keeper.keep(state.head)
  }

  private rolledBack(kept: ChainHead, store: ChainHead | null, what: string): DeskError {
    this.rollback = { kept: { seq: kept.seq, digest: kept.digest.toLowerCase() as Hex }, store, reason: `${what} at entry ${kept.seq}` }
    return rollbackError(this.rollback)
  }

  /** The store's last row now (only read to name it in a rollback). */
  private async storeHead(read: (fromSeq: bigint) => Promise<StoredRow[]>): Promise<ChainHead | null> {
    const all = await read(0n).catch(() => [])
    const last = all.at(-1)
    return last ? { seq: last.seq, digest: last.digest as Hex } : null
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
