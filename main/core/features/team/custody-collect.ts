/**
 * The executing desk's side of a release (custody.ts): each release of a request is checked (a
 * holder of this split and still a member, its index, not expired, signed by the holder for
 * exactly this request, proposal and recipient) and opened with this member's identity key, until
 * the threshold is reached or the wait ends (nothing signed). Then the key is combined, checked to
 * be the account's, signs the digest once, and every buffer is zeroed.
 */
import { bytesToHex, recoverAddress, recoverTypedDataAddress, type Hex } from 'viem'
import { sign } from 'viem/accounts'
import { DeskError } from '../../errors/desk-error'
import { combineKey, type CustodyRecord, type CustodyStore, type ReleaseRow, type TeamState } from '../../team'
import { parseEnvelope, type Vault } from '../../vault'
import { releaseAad, releaseTypedData } from './custody-proof'

export interface ReleaseWait {
  store: CustodyStore
  vault: Vault
  now: () => number
  /** how long to wait for the threshold, in ms */
  waitMs: number
  /** resolves after `ms`, or earlier when a release is pushed */
  pause(ms: number): Promise<void>
}

/**
 * Adds opened releases of `request` to `shares` until it holds the record's threshold; holders in
 * `used` are not asked again (this member's own share). Throws CustodySharesMissing past the wait.
 */
export async function collectReleases(
  w: ReleaseWait,
  o: { state: TeamState; record: CustodyRecord; proposalId: Hex; request: Hex; me: string; what: string },
  shares: Uint8Array[],
  used: Set<string>,
): Promise<void> {
  const until = w.now() + w.waitMs
  while (shares.length < o.record.threshold) {
    for (const r of await w.store.releases(o.request)) {
      if (used.has(r.holder)) continue
      used.add(r.holder)
      const share = await openRelease(w, o, r)
      if (share) shares.push(share)
    }
    if (shares.length >= o.record.threshold) return
    if (w.now() >= until)
      throw new DeskError(
        'CustodySharesMissing',
        `${shares.length} of ${o.record.threshold} shares released for ${o.what} within ${Math.round(w.waitMs / 1000)} s: ` +
          "nothing was signed (the holders' desks must be running and connected)",
        { have: shares.length, need: o.record.threshold, proposalId: o.proposalId },
      )
    await w.pause(250)
  }
}

/** One release checked (holder, binding, expiry, signature) and opened; null when it is refused. */
async function openRelease(
  w: ReleaseWait,
  o: { state: TeamState; record: CustodyRecord; proposalId: Hex; request: Hex; me: string },
  r: ReleaseRow,
): Promise<Uint8Array | null> {
  const roster = o.state.roster!
  const holder = o.record.holders.find((h) => h.address === r.holder)
  if (!holder || holder.index !== r.index || !roster.members.has(r.holder)) return null // not a holder of this split (or removed)
  if (r.expiresAt <= w.now()) return null // an expired release is never used
  const td = releaseTypedData(roster.teamId, {
    request: o.request,
    proposal: o.proposalId,
    to: o.me,
    holder: r.holder,
    index: r.index,
    expiresAt: r.expiresAt,
    envelope: r.envelope,
  })
  let signer: string
  try {
    signer = (await recoverTypedDataAddress({ ...td, signature: r.signature as Hex })).toLowerCase()
  } catch {
    return null
  }
  if (signer !== r.holder) return null
  try {
    return w.vault.openForIdentity(parseEnvelope(r.envelope), releaseAad(roster.teamId, o.request, o.me, r.holder, r.index))
  } catch {
    return null
  }
}

/** Combines the shares, signs `digest` once as `address` (checked), and zeroes the key. */
export async function signWithShares(shares: Uint8Array[], address: string, digest: Hex): Promise<Hex> {
  const key = await combineKey(shares, address)
  try {
    const signature = await sign({ hash: digest, privateKey: bytesToHex(key), to: 'hex' })
    if ((await recoverAddress({ hash: digest, signature })).toLowerCase() !== address)
      throw new DeskError('CustodyKeyMismatch', 'the combined key did not sign as the account: nothing was sent')
    return signature
  } finally {
    key.fill(0)
  }
}
