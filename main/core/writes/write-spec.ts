import type { Address } from 'viem'
import type { EarnClient, EarnWriteResult } from '../exchange/earn/earn-client'
import type { SubmitRequest } from '../exchange/trade/submitter'
import type { CheckedOrder, PriceBandOverride } from '../policy'
import type { MoveRequest } from '../policy/gate'
import type { WriteSide } from '../session'
import type { WriteKind } from './decision'

/**
 * What a feature tells the write pipeline about one write: it validates and previews the write
 * (reads, the service's rules, the exact action) and names what its kind's guardrail needs. The
 * pipeline runs every other step (session, guardrails, decision, signing, journal, send, outcome).
 */
export interface WriteSpec<F = void> {
  kind: WriteKind
  /** The request's inputs of the kind's guardrail that runs before validation (transfer, withdraw). */
  guard?: GuardInputs
  /** The feature's validate + preview: signs nothing. */
  describe(w: WriteSide): Promise<DescribedWrite<F>>
}

/** A /trade write: the request the submitter signs (its cloid is fixed by the pipeline before the decision). */
export interface TradeSigning {
  channel: 'trade'
  request: SubmitRequest
  /**
   * Only when the action can be built once the decision allowed it (an API key replaced in place:
   * the vault swaps the key as it generates it, so that must not happen for a write not yet allowed).
   */
  afterDecision?: () => Promise<SubmitRequest>
  /**
   * For an action that cannot carry a cloid (agent approvals and revocations): the key the decision
   * step knows the write by, so an approved team proposal can be matched when it is run again. The
   * team layer's only: the exchange never sees it.
   */
  matchKey?: string
}

/** An earn write: signed and journaled through the given client (the pipeline hands it one that does not send). */
export interface EarnSigning {
  channel: 'earn'
  /** The operation id the journal files it under. */
  key: string
  /** The signed message's fields (what the decision step sees as the action). */
  action: Record<string, unknown>
  sign(earn: EarnClient): Promise<EarnWriteResult>
}

/** The inputs of the kind's guardrail (policy/gate.ts); which one applies is the pipeline's table, not the feature's choice. */
export interface GuardInputs {
  /** transfer: recipient, asset, amount */
  transfer?: MoveRequest & { to: string }
  /** withdraw: destination, asset, amount */
  withdraw?: MoveRequest & { dstAddress: string; dstChainId: string }
  /** order: the checked ticket and the book it is banded against, with the operator's override if any */
  order?: { order: CheckedOrder; override?: PriceBandOverride | undefined }
}

export interface DescribedWrite<F = void> {
  account: Address
  signing: TradeSigning | EarnSigning
  title: string
  preview: readonly string[]
  /** The value the write moves (valued at marks for the decision), when it moves value. */
  moves?: { assetId: number; atoms: bigint } | null
  destination?: { address: Address; chainId?: string }
  /** The validated write's inputs of the kind's guardrail that needs them (an order). */
  guard?: GuardInputs
  /** Anything the feature's handler needs back after the send (e.g. the previewed figures). */
  feature: F
}
