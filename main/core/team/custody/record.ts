/**
 * The custody record of an account in the team chain: an admin-quorum change (entry kind
 * `custody`, signed as a change like roster and policy entries) naming who holds a share of the
 * account's owner key, how many shares sign (the threshold), the split's version, the offline
 * recovery share's index and checksum, and the digest of the sealed shares as stored. A new
 * version (a re-split after a member left, a recovery) retires every share of the older ones.
 */
import { canonicalJson, type Canonical } from '../canonical'
import { teamBadInput } from '../errors'
import type { Roster } from '../roster'
import { MAX_SHARES, MIN_THRESHOLD } from './key-split'

export interface CustodyHolder {
  address: string
  /** the share's index (its x coordinate), 1 to 255 */
  index: number
}

export interface CustodyRecord {
  account: string
  version: number
  threshold: number
  holders: CustodyHolder[]
  /** the offline share: its index and its file's checksum (never stored by any desk) */
  recovery: { index: number; checksum: string } | null
  /** sha256 over the sealed shares as stored (holder order), so a swapped envelope is seen */
  sharesDigest: string
}

const HEX32 = /^0x[0-9a-f]{64}$/
const ADDRESS = /^0x[0-9a-f]{40}$/
const isObj = (v: unknown): v is Record<string, Canonical> => typeof v === 'object' && v !== null && !Array.isArray(v)

function int(v: unknown, what: string, min: number, max: number): number {
  if (typeof v !== 'number' || !Number.isInteger(v) || v < min || v > max)
    throw teamBadInput(`${what} must be a whole number from ${min} to ${max}`)
  return v
}

/** Checks a custody entry's payload against the state before it; returns the record it puts in force. */
export function custodyFromPayload(payload: Canonical, roster: Roster, current: ReadonlyMap<string, CustodyRecord>): CustodyRecord {
  if (!isObj(payload)) throw teamBadInput('a custody entry carries {basis, custodyOf, version, threshold, holders, recovery, sharesDigest}')
  const allowed = ['basis', 'custodyOf', 'version', 'threshold', 'holders', 'recovery', 'sharesDigest']
  for (const k of Object.keys(payload)) if (!allowed.includes(k)) throw teamBadInput(`unexpected field ${k}`)
  const account = payload.custodyOf
  if (typeof account !== 'string' || !ADDRESS.test(account)) throw teamBadInput('account must be a lower-case address')
  const before = current.get(account)
  const version = int(payload.version, 'version', 1, 1_000_000)
  if (version !== (before?.version ?? 0) + 1) throw teamBadInput(`custody version must be ${(before?.version ?? 0) + 1}, got ${version}`)
  if (!Array.isArray(payload.holders) || payload.holders.length === 0) throw teamBadInput('holders must list the members holding a share')
  const seen = new Set<string>()
  const indices = new Set<number>()
  const holders = payload.holders.map((h, i) => {
    if (!isObj(h) || typeof h.address !== 'string' || !ADDRESS.test(h.address)) throw teamBadInput(`holder ${i} must be {address, index}`)
    if (!roster.members.has(h.address)) throw teamBadInput(`holder ${h.address} is not a member of the team`)
    if (seen.has(h.address)) throw teamBadInput(`${h.address} holds two shares: one member, one share`)
    seen.add(h.address)
    const index = int(h.index, `holder ${i}'s index`, 1, 255)
    if (indices.has(index)) throw teamBadInput(`share index ${index} is given twice`)
    indices.add(index)
    return { address: h.address, index }
  })
  let recovery: CustodyRecord['recovery'] = null
  if (payload.recovery !== null) {
    const r = payload.recovery
    if (!isObj(r) || typeof r.checksum !== 'string' || !HEX32.test(r.checksum))
      throw teamBadInput('recovery must be {index, checksum} or null')
    const index = int(r.index, 'the recovery share index', 1, 255)
    if (indices.has(index)) throw teamBadInput(`share index ${index} is given twice`)
    recovery = { index, checksum: r.checksum }
  }
  const shares = holders.length + (recovery ? 1 : 0)
  const threshold = int(payload.threshold, 'threshold', MIN_THRESHOLD, MAX_SHARES)
  if (shares > MAX_SHARES || threshold > shares)
    throw teamBadInput(`${threshold} of ${shares} shares: the threshold cannot exceed the shares (at most ${MAX_SHARES})`)
  // The members alone must reach the threshold (the offline share is for recovery, kept in a safe),
  // and the threshold is at least 2, so no single member's desk ever reaches it.
  if (holders.length < threshold)
    throw teamBadInput(`the members holding shares (${holders.length}) must be able to reach the threshold (${threshold})`)
  const sharesDigest = payload.sharesDigest
  if (typeof sharesDigest !== 'string' || !HEX32.test(sharesDigest)) throw teamBadInput('sharesDigest must be a 32-byte hex digest')
  return { account, version, threshold, holders, recovery, sharesDigest }
}

/**
 * The payload of a custody entry (without its basis, which authoring adds), canonical. The account
 * is `custodyOf`: canonical JSON orders keys, and a change's payload starts with its `basis`.
 */
export function custodyPayload(r: CustodyRecord): Record<string, Canonical> {
  const { account, ...rest } = r
  return JSON.parse(canonicalJson({ custodyOf: account, ...rest })) as Record<string, Canonical>
}

/**
 * A re-split authorised by the admin quorum (a member left, a desk was lost): the next version's
 * holders and threshold, and the member (`sealer`) whose desk combines the current shares released
 * to it (or the offline recovery share with T-1 of them), splits the key again and seals the new
 * shares. Until its seal entry, the current version stays in force.
 */
export interface CustodyPending {
  account: string
  version: number
  threshold: number
  holders: string[]
  recovery: boolean
  sealer: string
  /** the authorising entry's digest (what the holders' releases name) */
  entry: string
}

/** Checks a re-split authorisation (`{basis, custodyOf, resplit: {...}}`) against the state before it. */
export function resplitFromPayload(
  payload: Canonical,
  roster: Roster,
  current: ReadonlyMap<string, CustodyRecord>,
  digest: string,
): CustodyPending {
  if (!isObj(payload) || !isObj(payload.resplit)) throw teamBadInput('a re-split carries {basis, custodyOf, resplit}')
  for (const k of Object.keys(payload)) if (!['basis', 'custodyOf', 'resplit'].includes(k)) throw teamBadInput(`unexpected field ${k}`)
  const account = payload.custodyOf
  if (typeof account !== 'string' || !ADDRESS.test(account)) throw teamBadInput('custodyOf must be a lower-case address')
  const before = current.get(account)
  if (!before) throw teamBadInput(`${account} is not held by the team: split it first`)
  const r = payload.resplit
  for (const k of Object.keys(r))
    if (!['version', 'threshold', 'holders', 'recovery', 'sealer'].includes(k)) throw teamBadInput(`unexpected field ${k}`)
  const version = int(r.version, 'version', 2, 1_000_000)
  if (version !== before.version + 1) throw teamBadInput(`the re-split version must be ${before.version + 1}, got ${version}`)
  if (!Array.isArray(r.holders) || r.holders.length === 0) throw teamBadInput('holders must list the members holding a share')
  const holders = r.holders.map((h) => {
    if (typeof h !== 'string' || !ADDRESS.test(h)) throw teamBadInput('a holder is a lower-case address')
    if (!roster.members.has(h)) throw teamBadInput(`holder ${h} is not a member of the team`)
    return h
  })
  if (new Set(holders).size !== holders.length) throw teamBadInput('one member, one share')
  const threshold = int(r.threshold, 'threshold', MIN_THRESHOLD, MAX_SHARES)
  if (holders.length < threshold)
    throw teamBadInput(`the members holding shares (${holders.length}) must be able to reach the threshold (${threshold})`)
  if (typeof r.recovery !== 'boolean') throw teamBadInput('recovery must be true or false')
  if (typeof r.sealer !== 'string' || !roster.members.has(r.sealer)) throw teamBadInput('the sealer must be a member of the team')
  return { account, version, threshold, holders, recovery: r.recovery, sealer: r.sealer, entry: digest }
}

/** A seal entry (`{custodyOf, seal: {...}}`, signed by the sealer alone): the re-split's shares, completing the pending version. */
export function sealFromPayload(payload: Canonical, signer: string, pending: ReadonlyMap<string, CustodyPending>): CustodyRecord {
  if (!isObj(payload) || !isObj(payload.seal)) throw teamBadInput('a seal carries {custodyOf, seal}')
  const account = payload.custodyOf
  const p = typeof account === 'string' ? pending.get(account) : undefined
  if (!p) throw teamBadInput(`no re-split of ${String(account)} is waiting for its seal`)
  if (signer !== p.sealer) throw teamBadInput(`the re-split names ${p.sealer} to seal it, not ${signer}`)
  const s = payload.seal
  const record = custodyFromPayload(
    {
      custodyOf: account as string,
      version: s.version ?? null,
      threshold: p.threshold,
      holders: s.holders ?? null,
      recovery: s.recovery ?? null,
      sharesDigest: s.sharesDigest ?? null,
    },
    { members: new Map(p.holders.map((h) => [h, { address: h, name: '', roles: [] }])) } as unknown as Roster,
    new Map([[account as string, { version: p.version - 1 } as CustodyRecord]]),
  )
  const named = new Set(record.holders.map((h) => h.address))
  if (named.size !== p.holders.length || p.holders.some((h) => !named.has(h)))
    throw teamBadInput('the sealed holders are not the ones the re-split named')
  if ((record.recovery !== null) !== p.recovery) throw teamBadInput('the recovery share is not as the re-split said')
  return record
}

export const isResplit = (payload: Canonical) => isObj(payload) && isObj(payload.resplit)
export const isSeal = (payload: Canonical) => isObj(payload) && isObj(payload.seal)
