/**
 * The approver's review, field by field (as Safe's decoded-call review and Fireblocks' approver
 * card): what the proposal says beside what this desk reads itself from the exact action that will
 * be signed, and the value it computes now at its own marks. A field is marked only where this
 * desk's own reading differs from the initiator's; a field this desk cannot read (no mark, an asset
 * it cannot name, a kind whose action names no destination) is said so, never shown as a difference.
 * Wording, letter case and formatting never make a difference: values are compared, not lines.
 */
import type { TeamReviewField } from '../../../contract/types'
import { formatAmount, formatUsdCents, type AssetUnits } from '../../../contract/format'
import { formatAtoms } from '../../money/decimal'
import { USD_DECIMALS, judgedUsd, unknownUsdNote, type Proposal } from '../../team'
import { movedAtoms, type UnitsBook } from './amounts'

/** A USD value recomputed now that moved more than this (basis points of the initiator's) is a difference. */
export const USD_TOLERANCE_BPS = 100n

/** The action `type` each proposal kind signs (the exchange's and the earn pool's own names). */
const ACTION_TYPE: Record<string, readonly string[]> = {
  settle: ['settle'],
  repay: ['repay'],
  transfer: ['transfer'],
  withdraw: ['withdraw'],
  activation: ['activateFor'],
  agent_approve: ['approveAgent'],
  agent_revoke: ['revokeAgent'],
  earn_request: ['createWithdrawal'],
  earn_claim: ['claimWithdrawal'],
  earn_cancel: ['cancelWithdrawal'],
}

/** Where each kind's action names the counterparty (the address funds go to). */
const DESTINATION_FIELD: Record<string, string> = {
  transfer: 'to',
  withdraw: 'dst_address',
  settle: 'cash_account',
  repay: 'margin_account',
}

const usdText = (atoms: bigint) => formatUsdCents(formatAtoms(atoms, USD_DECIMALS))
const lower = (v: unknown) => (typeof v === 'string' ? v.toLowerCase() : null)

function field(key: TeamReviewField['key'], label: string, initiator: string | null, mine: string | null, note?: string): TeamReviewField {
  const state: TeamReviewField['state'] = mine === null ? 'unreadable' : initiator === mine ? 'same' : 'differs'
  return { key, label, initiator, mine, state, ...(note ? { note } : {}) }
}

export interface ReviewInputs {
  units: UnitsBook
  /** This desk's USD value of `atoms` of `assetId` at its own fresh marks; null without one. */
  valueNow(assetId: number, atoms: bigint): Promise<bigint | null>
}

/** The review of `p`: each field once, the initiator's reading beside this desk's own. */
export async function reviewFields(p: Proposal, d: ReviewInputs): Promise<TeamReviewField[]> {
  const a = p.action as Record<string, unknown>
  const out: TeamReviewField[] = []
  const types = ACTION_TYPE[p.kind]
  const decodedType = typeof a.type === 'string' ? a.type : null
  out.push(
    types && decodedType
      ? field('kind', 'Action', p.kind, types.includes(decodedType) ? p.kind : `${decodedType} (not a ${p.kind})`)
      : { key: 'kind', label: 'Action', initiator: p.kind, mine: p.kind, state: 'same' },
  )
  out.push({ key: 'network', label: 'Network', initiator: p.network, mine: p.network, state: 'same', note: `exchange ${p.exchange}` })
  out.push({
    key: 'account',
    label: 'Account',
    initiator: p.account,
    mine: p.account,
    state: 'same',
    note: 'the exchange recovers the signer from the signature: a key of another account cannot act for it',
  })
  if (p.signer !== null) {
    const keyType = p.signer === p.account ? 'owner key' : `API key ${p.signer}`
    out.push({ key: 'signer', label: 'Signed by', initiator: keyType, mine: keyType, state: 'same' })
  }
  const moved = movedAtoms(p)
  if (moved) {
    const units: AssetUnits | null = d.units.of(moved.assetId, moved.earn)
    out.push(
      field(
        'asset',
        'Asset',
        units?.symbol ?? null,
        units?.symbol ?? null,
        units ? undefined : `asset ${moved.assetId}: this desk cannot read its units on ${p.network}`,
      ),
    )
    // The title and preview are the initiator's words; the amount is read from the exact action.
    const mine = units ? formatAmount(moved.atoms, units) : null
    out.push({ key: 'amount', label: 'Amount', initiator: mine, mine, state: mine === null ? 'unreadable' : 'same' })
  }
  const destKey = DESTINATION_FIELD[p.kind]
  if (destKey || p.destination) {
    const decoded = destKey ? lower(a[destKey]) : null
    out.push(field('destination', 'Destination', p.destination, decoded, decoded === null ? 'this action names no destination' : undefined))
  }
  if (moved && p.usd !== null) {
    const now = await d.valueNow(moved.assetId, moved.atoms).catch(() => null)
    const diff = now === null ? null : now > p.usd ? now - p.usd : p.usd - now
    const within = diff !== null && diff * 10_000n <= (p.usd * USD_TOLERANCE_BPS > 0n ? p.usd * USD_TOLERANCE_BPS : 0n)
    out.push({
      key: 'usd',
      label: 'Value (USD)',
      initiator: usdText(p.usd),
      mine: now === null ? null : usdText(now),
      state: now === null ? 'unreadable' : within ? 'same' : 'differs',
      note:
        now === null
          ? 'this desk has no fresh mark for the asset now'
          : `at this desk's marks now; a move of more than ${Number(USD_TOLERANCE_BPS) / 100} % is a difference`,
    })
  } else if (judgedUsd(p.kind, p.usd) === null) {
    // Any value-moving kind (an order too): said to be unknown, never left out as if it moved nothing.
    out.push({ key: 'usd', label: 'Value (USD)', initiator: null, mine: null, state: 'unreadable', note: unknownUsdNote(p)! })
  }
  out.push({ key: 'rule', label: 'Policy rule', initiator: p.rule, mine: p.rule, state: 'same', note: `policy version ${p.policyVersion}` })
  out.push({ key: 'cloid', label: 'Cloid', initiator: p.cloid, mine: lower(a.cloid) ?? p.cloid, state: 'same' })
  const cloid = out.at(-1)!
  if (typeof a.cloid === 'string' && a.cloid.toLowerCase() !== p.cloid.toLowerCase()) cloid.state = 'differs'
  return out
}
