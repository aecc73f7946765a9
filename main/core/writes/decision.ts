import type { Address } from 'viem'

/**
 * The decision step of the one write pipeline: after the write is validated, previewed and has
 * passed the desk's own guardrails (halt, limits, address book, band), and before the operator
 * confirms and anything is signed, a `WriteGate` decides whether this desk may sign it now.
 * A single operator's desk allows everything (`ALLOW_ALL`); team mode plugs in here (a write the
 * team policy does not simply allow becomes a proposal; an approved proposal is allowed, and its
 * signed bytes are stored before they are sent, so any desk re-sends the same bytes, never a new
 * signature).
 */

/** Every kind of exchange write, as the decision step and the team policy name it. */
export const WRITE_KINDS = [
  'settle',
  'repay',
  'transfer',
  'withdraw',
  'activation',
  'agent_approve',
  'agent_revoke',
  'agent_rotate',
  'earn_request',
  'earn_claim',
  'earn_cancel',
  'order',
  'cancel',
  'halt',
  'resume',
] as const
export type WriteKind = (typeof WRITE_KINDS)[number]

/** A write as the decision step sees it: exactly what will be signed, and what it is worth. */
export interface WriteIntent {
  kind: WriteKind
  /** Network name (as journaled) and the exchange identity its policy is keyed by. */
  network: string
  exchange: string
  /** The account the write is for (owner), and the key that will sign it. */
  account: Address
  signer: Address | null
  /** The write's idempotency handle: the cloid on /trade, the operation key on earn. Fixed before the decision. */
  cloid: string
  /** The exact action that will be signed, before nonce and expiry (JSON-safe: strings, no bigint). */
  action: Record<string, unknown>
  /** USD value at current marks, in USD atoms (8 decimals, session/valuation.ts); null when the write moves no value. */
  usdAtoms: bigint | null
  /** Where value leaves to (transfer, withdraw, activation payee), when it leaves the account. */
  destination?: { address: Address; chainId?: string }
  /** What the operator is shown: a one-line title and the preview lines. */
  title: string
  preview: readonly string[]
}

export type WriteDecision =
  | { verdict: 'allow'; /** The team proposal this write executes, journaled with it. */ proposalId?: string }
  | { verdict: 'block'; code: string; reason: string }
  /** Not signed now: waiting for approvals. The caller shows the proposal, nothing was sent. */
  | { verdict: 'propose'; proposalId: string; needs: string; expiresAt: number }

/** The signed bytes of an allowed write, before they leave (team mode stores them first). */
export interface SignedWrite {
  intent: WriteIntent
  journalId: number
  /** The exact request body sent (the signed envelope), and its envelope nonce. */
  body: string
  nonce: string
}

export interface WriteGate {
  decide(intent: WriteIntent): Promise<WriteDecision>
  /**
   * Called once the write is signed and journaled, before it is sent; a throw stops the send (the
   * entry stays provably unsent). Answers with the team proposal the write executes, if any: the
   * journal records it with the write.
   */
  beforeSend?(signed: SignedWrite): Promise<{ proposalId?: string } | void>
  /**
   * Called as the signed bytes start to leave; the returned function when the send ended (answered
   * or given up). Team mode keeps its execution lease alive meanwhile: the submitter may resend the
   * same bytes until the envelope expires, longer than one lease.
   */
  sending?(intent: WriteIntent): () => void
  /** Called with the write's final or unknown outcome. */
  settled?(intent: WriteIntent, outcome: { state: string; finalStatus: string | null; code: string | null }): Promise<void>
}

/** One operator, no team: the desk's own guardrails are the whole decision. */
export const ALLOW_ALL: WriteGate = { decide: async () => ({ verdict: 'allow' }) }
