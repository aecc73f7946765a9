/**
 * A holder's desk answering one signing request (custody.ts): it releases its share only for a
 * request it verified on its own (a re-split its chain names with this requester as sealer, or an
 * approved proposal of the account whose typed data carries exactly the approved action, and for a
 * write the policy allows outright only with its co-signer rule on), re-sealed to the requester's
 * identity key, signed, for one minute. Otherwise it says why and releases nothing.
 */
import { hexToBytes, type Hex, type TypedDataDefinition } from 'viem'
import {
  EXECUTOR_ROLES,
  addressOfPublicKey,
  isRecordedWrite,
  proposalStatus,
  type CustodyStore,
  type SigningRequestRow,
  type TeamState,
} from '../../team'
import { parseEnvelope, sealShare, shareAad, type Vault } from '../../vault'
import { digestCarrying, typedDataOf } from './custody-bytes'
import { RELEASE_TTL_MS, releaseAad, releaseTypedData, resplitOf, resplitRequestId } from './custody-proof'

export interface Releaser {
  store: CustodyStore
  vault: Vault
  now: () => number
  /** this member's co-signer rule (off by default) */
  coSign: () => boolean
}

/** Releases this member's share for `q`, or says why not (null: released, or not asked of this desk). */
export async function answerRequest(r: Releaser, state: TeamState, q: SigningRequestRow, me: string): Promise<string | null> {
  const record = state.custody.get(q.account)
  const holder = record?.holders.find((h) => h.address === me)
  if (!record || !holder || q.requester === me) return null // not asked of this desk (its own request uses its share directly)
  if (record.version !== q.version) return `split version ${q.version} is retired (now ${record.version})`
  const resplit = resplitOf(q.typedData)
  if (resplit) {
    const pending = state.custodyPending.get(q.account)
    if (!pending || pending.entry !== q.proposalId || pending.sealer !== q.requester || pending.version !== resplit.version)
      return 'no re-split of this account names this requester as its sealer'
    if (q.id !== resplitRequestId(state.roster!.teamId, q.account, pending.version, q.requester))
      return 'the re-split request is not the one its entry names'
    return releaseTo(r, state, q, me, holder.index, record.version)
  }
  const p = state.proposals.get(q.proposalId)
  if (!p || p.account !== q.account) return 'no such proposal of the team for this account'
  const status = proposalStatus(p, state.roster!, r.now())
  if (status !== 'approved') return `the proposal is ${status}`
  if (isRecordedWrite(p) && !r.coSign())
    return 'a write the policy allows outright: this member co-signs those only with the co-signer rule on'
  const requester = state.roster!.members.get(q.requester)
  if (!requester || !requester.roles.some((x) => EXECUTOR_ROLES.includes(x))) return 'the requester may not execute'
  let td: TypedDataDefinition
  try {
    td = typedDataOf(q.typedData)
  } catch {
    return 'the request is not typed data'
  }
  if (digestCarrying(p, td) !== q.id) return 'the bytes to sign do not carry exactly the approved action'
  return releaseTo(r, state, q, me, holder.index, record.version)
}

/** Seals this holder's share to the requester for request `q` (its proposal or re-split entry), signed, for one minute. */
async function releaseTo(
  r: Releaser,
  state: TeamState,
  q: SigningRequestRow,
  me: string,
  index: number,
  version: number,
): Promise<string | null> {
  const mine = (await r.store.shares(q.account, version)).find((s) => s.holder === me)
  if (!mine) return 'this holder has no stored share'
  const [pub] = [...(await r.store.identityKeys([q.requester])).values()]
  if (!pub || addressOfPublicKey(pub) !== q.requester) return "the requester's identity key is not published"
  const teamId = state.roster!.teamId
  const share = r.vault.openForIdentity(parseEnvelope(mine.envelope), shareAad({ teamId, account: q.account, version, index, holder: me }))
  if (!share) return 'this desk cannot open its share (not sealed to its identity key)'
  let envelope: string
  try {
    envelope = JSON.stringify(sealShare(hexToBytes(pub as Hex), share, releaseAad(teamId, q.id, q.requester, me, index)))
  } finally {
    share.fill(0)
  }
  const expiresAt = r.now() + RELEASE_TTL_MS
  const td = releaseTypedData(teamId, {
    request: q.id as Hex,
    proposal: q.proposalId as Hex,
    to: q.requester,
    holder: me,
    index,
    expiresAt,
    envelope,
  })
  const signature = await r.vault.signAsIdentity(td as unknown as Parameters<Vault['signAsIdentity']>[0])
  await r.store.putRelease({ requestId: q.id, holder: me, index, envelope, expiresAt, signature })
  return null
}
