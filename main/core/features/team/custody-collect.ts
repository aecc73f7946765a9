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
  const refused: string[] = []
  while (shares.length < o.record.threshold) {
    for (const r of await w.store.releases(o.request)) {
      if (used.has(r.holder)) continue
      used.add(r.holder)
      const opened = await openRelease(w, o, r)
      if (opened instanceof Uint8Array) shares.push(opened)
      else refused.push(`${r.holder}'s release refused: ${opened}`)
    }
    if (shares.length >= o.record.threshold) return
    if (w.now() >= until)
      throw new DeskError(
        'CustodySharesMissing',
        `${shares.length} of ${o.record.threshold} shares released for ${o.what} within ${Math.round(w.waitMs / 1000)} s: ` +
          "nothing was signed (the holders' desks must be running and connected)" +
          (refused.length > 0 ? `; ${refused.join('; ')}` : ''),
        { have: shares.length, need: o.record.threshold, proposalId: o.proposalId, refused: refused.join('; ') },
      )
    await w.pause(250)
  }
}

/** One release checked (holder, binding, expiry, signature) and opened; why not when it is refused. */
async function openRelease(
  w: ReleaseWait,
  o: { state: TeamState; record: CustodyRecord; proposalId: Hex; request: Hex; me: string },
  r: ReleaseRow,
): Promise<Uint8Array | string> {
  const roster = o.state.roster!
  const holder = o.record.holders.find((h) => h.address === r.holder)
  if (!holder || holder.index !== r.index) return `not a holder of split version ${o.record.version} at that index`
  if (!roster.members.has(r.holder)) return 'no longer a member of the team'
  if (r.expiresAt <= w.now()) return 'expired' // an expired release is never used
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
    return 'its signature does not verify'
  }
  if (signer !== r.holder) return 'not signed by its holder for this request, proposal and recipient'
  try {
    const share = w.vault.openForIdentity(parseEnvelope(r.envelope), releaseAad(roster.teamId, o.request, o.me, r.holder, r.index))
    return share ?? 'it does not open with this desk for this request (sealed for other bytes or another member)'
  } catch {
    return 'its envelope is damaged'
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
