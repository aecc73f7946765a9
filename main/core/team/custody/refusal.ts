/**
 * A custody refusal, named in the chain for every desk: a holder's desk that would not release its
 * share for a request (the proposal is not approved, the bytes do not carry the approved action, a
 * retired split version, a write the policy allows outright without its co-signer rule), or the
 * executing desk that refused a release (not a holder, expired, signed for other bytes) or gave up
 * (not enough shares, a combined key that is not the account's). Nothing was signed in each case.
 * One author, a current member (chain.ts checks the signature); the account must be team-held.
 */
import type { Hex } from 'viem'
import type { Canonical } from '../canonical'
import { unsignedEntry, type UnsignedEntry } from '../entry'
import { teamBadInput } from '../errors'
import type { CustodyRecord } from './record'

/** Longest reason kept in the chain. */
export const MAX_REFUSAL_REASON = 300
/** How many refusals the verified state keeps (the chain keeps them all). */
export const KEPT_REFUSALS = 200

export interface CustodyRefusal {
  account: string
  /** the proposal (or re-split entry) the request was for */
  proposal: string
  /** the signing request: the digest of the bytes to sign, or a re-split's request id */
  request: string
  /** the member whose desk refused */
  by: string
  /** 'release': a holder released nothing; 'sign': the executing desk signed nothing */
  side: 'release' | 'sign'
  /** a DeskError code where one applies (CustodySharesMissing, CustodyKeyMismatch), else null */
  code: string | null
  reason: string
  at: number
  seq: bigint
}

const isObj = (v: unknown): v is Record<string, Canonical> => typeof v === 'object' && v !== null && !Array.isArray(v)
const HASH = /^0x[0-9a-f]{64}$/

export const isRefusal = (payload: Canonical) => isObj(payload) && isObj(payload.refusal)

/** A refusal entry's payload (`{custodyOf, refusal: {...}}`), checked against the team-held accounts. */
export function refusalFromPayload(
  payload: Canonical,
  signer: string,
  custody: ReadonlyMap<string, CustodyRecord>,
  seq: bigint,
): CustodyRefusal {
  if (!isObj(payload) || !isObj(payload.refusal)) throw teamBadInput('a custody refusal carries {custodyOf, refusal}')
  const account = payload.custodyOf
  if (typeof account !== 'string' || !custody.has(account)) throw teamBadInput(`${String(account)} is not held by the team`)
  const r = payload.refusal
  const allowed = ['proposal', 'request', 'side', 'code', 'reason', 'at']
  for (const k of Object.keys(r)) if (!allowed.includes(k)) throw teamBadInput(`a custody refusal has no field ${k}`)
  if (typeof r.proposal !== 'string' || !HASH.test(r.proposal)) throw teamBadInput('a custody refusal names its proposal (32-byte hex)')
  if (typeof r.request !== 'string' || !HASH.test(r.request)) throw teamBadInput('a custody refusal names its request (32-byte hex)')
  if (r.side !== 'release' && r.side !== 'sign') throw teamBadInput("a custody refusal's side is 'release' or 'sign'")
  if (r.code !== null && (typeof r.code !== 'string' || !/^[A-Za-z]{1,64}$/.test(r.code)))
    throw teamBadInput("a custody refusal's code is a word or null")
  if (typeof r.reason !== 'string' || r.reason.length === 0 || r.reason.length > MAX_REFUSAL_REASON)
    throw teamBadInput(`a custody refusal gives its reason (1 to ${MAX_REFUSAL_REASON} characters)`)
  if (typeof r.at !== 'number' || !Number.isSafeInteger(r.at) || r.at <= 0)
    throw teamBadInput("a custody refusal's time is ms since the epoch")
  return { account, proposal: r.proposal, request: r.request, by: signer, side: r.side, code: r.code, reason: r.reason, at: r.at, seq }
}

/** The refusal entry after `head`, checked as every desk will check it. */
export function custodyRefusalEntry(
  state: { head: { seq: bigint; digest: Hex } | null; custody: ReadonlyMap<string, CustodyRecord> },
  r: Omit<CustodyRefusal, 'by' | 'seq'>,
  author: string,
): UnsignedEntry {
  if (!state.head) throw teamBadInput('the team chain has no verified genesis yet')
  const refusal = {
    proposal: r.proposal.toLowerCase(),
    request: r.request.toLowerCase(),
    side: r.side,
    code: r.code,
    reason: r.reason.length > MAX_REFUSAL_REASON ? r.reason.slice(0, MAX_REFUSAL_REASON - 1) + '…' : r.reason,
    at: r.at,
  }
  const e = unsignedEntry(state.head.seq + 1n, state.head.digest, 'custody', { custodyOf: r.account.toLowerCase(), refusal })
  refusalFromPayload(JSON.parse(e.payload) as Canonical, author.toLowerCase(), state.custody, e.seq)
  return e
}
