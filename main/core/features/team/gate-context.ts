/**
 * What every step of the team gate shares: its options, the chain as this desk verified it, and
 * the one way it writes to the chain (an entry signed by this desk's operator on the freshest
 * verified state, retried when another desk took the seq). The steps are in their own modules:
 * write-decision.ts, quorum-signing.ts, settings-decision.ts, settings-apply.ts, lease-claims.ts,
 * lease-renewal.ts, outcome-record.ts, proposal-votes.ts.
 */
import type { Hex } from 'viem'
import { DeskError } from '../../errors/desk-error'
import {
  TeamErrors,
  lifecycleEntry,
  proposalKey,
  signedEntry,
  type LeaseTx,
  type OutcomeState,
  type Proposal,
  type ProposalBody,
  type ProposalEntryKind,
  type SignedEntry,
  type TeamSigner,
  type TeamState,
  type TeamStore,
} from '../../team'
import type { WriteIntent } from '../../writes/decision'
import { refused } from './gate-refusals'
import type { ExecutedCheck } from './executed-read'
import type { HeadKeeper, VerifiedChain } from './verified-chain'

export interface TeamGateOptions {
  store: TeamStore
  /** this desk's operator identity key (vault) */
  operator: TeamSigner
  /** names this desk as a lease holder (e.g. "ann@desk-2") */
  deskId: string
  /** the genesis this desk joined: a replaced chain is refused */
  genesisDigest?: Hex
  /** where this desk keeps the highest chain head it verified (the vault's team binding); none: not kept */
  heads?: HeadKeeper
  /** asks the exchange whether a proposal's cloid already executed, before anything is signed for it */
  executed?: ExecutedCheck
  /** whether an account's owner key is held by the team's shares: its allowed writes are recorded before signing (custody.ts) */
  custodyHeld?: (account: string) => boolean
  /** how long a proposal waits for approvals; default 24 h */
  proposalTtlMs?: number
  /** how long a desk holds the execution lease after storing the signed bytes; default 60 s */
  leaseMs?: number
  now?: () => number
  /** USD moved over the policy's rolling window, this write included (USD atoms); default: window.ts (proposals' recorded values, 24 h, per account) */
  windowUsd?: (intent: WriteIntent) => Promise<bigint | null>
  /** what to store in a new proposal so the approved write can be replayed (the channel and its arguments, cloid fixed) */
  replayOf?: (intent: WriteIntent) => ProposalBody['replay'] | undefined
}

export interface StoredSignature {
  proposalId: string
  body: string
  nonce: string
  /** the desk operator who stored them */
  by: string
  seq: bigint
}

/** What a desk found out about a proposal's stored bytes (the pipeline's outcome, or a takeover's). */
export interface ProposalOutcome {
  state: OutcomeState
  finalStatus: string | null
  code: string | null
  /** what was checked, when the exchange could not confirm (kept to MAX_EVIDENCE_CHARS) */
  evidence?: string | null
}

/** How often an append or a lease step is retried when another desk took the seq first. */
export const CONFLICT_RETRIES = 8
const DEFAULT_TTL_MS = 24 * 3600_000
const DEFAULT_LEASE_MS = 60_000

export const isConflict = (e: unknown) => e instanceof DeskError && e.code === TeamErrors.conflict

export class GateContext {
  readonly now: () => number

  constructor(
    readonly o: TeamGateOptions,
    readonly chain: VerifiedChain,
  ) {
    this.now = o.now ?? Date.now
  }

  get operatorAddress(): string {
    return this.o.operator.address.toLowerCase()
  }

  get deskId(): string {
    return this.o.deskId
  }

  get store(): TeamStore {
    return this.o.store
  }

  get proposalTtlMs(): number {
    return this.o.proposalTtlMs ?? DEFAULT_TTL_MS
  }

  get leaseMs(): number {
    return this.o.leaseMs ?? DEFAULT_LEASE_MS
  }

  /** Reads and verifies every entry after the last verified one. */
  sync(): Promise<TeamState> {
    return this.chain.sync((from) => this.o.store.readLog(from))
  }

  /** Rows appended since the last verified one, read inside the lease transaction (so none is missed). */
  syncVia(tx: LeaseTx): Promise<TeamState> {
    return this.chain.sync((from) => tx.readLog(from))
  }

  /** The proposal of this write (by its cloid, and its kind for an earn claim or cancel: team/proposal-key.ts). */
  proposalFor(state: TeamState, intent: { kind: string; cloid: string }): Proposal | undefined {
    if (intent.cloid === '') return undefined
    const id = state.cloids.get(proposalKey(intent.kind, intent.cloid))
    return id ? state.proposals.get(id) : undefined
  }

  /** Signs one lifecycle entry on `state`; an entry the chain's own rules refuse is TeamRefused before anything is signed. */
  async sign(state: TeamState, kind: ProposalEntryKind, payload: unknown): Promise<SignedEntry> {
    let unsigned
    try {
      unsigned = lifecycleEntry(state, kind, payload, this.operatorAddress)
    } catch (e) {
      // The chain's own rule, checked before anything is signed: every desk would refuse this entry.
      if (e instanceof DeskError && e.code === TeamErrors.badInput) throw refused(e.message)
      throw e
    }
    return signedEntry(state.roster!.teamId, unsigned, [this.o.operator])
  }

  /** Signs and appends one lifecycle entry on the freshest verified state (retried when another desk took the seq). */
  async append(kind: ProposalEntryKind, payload: (state: TeamState) => unknown): Promise<SignedEntry> {
    for (let attempt = 0; ; attempt++) {
      const state = await this.sync()
      const entry = await this.sign(state, kind, payload(state))
      try {
        await this.o.store.append(entry)
      } catch (e) {
        if (isConflict(e) && attempt < CONFLICT_RETRIES) continue
        throw e
      }
      await this.sync()
      return entry
    }
  }
}
