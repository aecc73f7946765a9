/**
 * The shares of one split (custody.ts): the key split T of N, each holder's share sealed to its
 * identity key, the offline recovery share written once to the operator's file; and this member's
 * own stored share opened. Every share buffer is zeroed once sealed or used.
 */
import { writeFileSync } from 'node:fs'
import { hexToBytes, type Hex } from 'viem'
import { recoveryShare, splitKey, type CustodyRecord, type CustodyStore } from '../../team'
import { parseEnvelope, sealShare, shareAad, type Vault } from '../../vault'
import { sharesDigest } from './custody-proof'

export interface SealedShare {
  holder: string
  index: number
  envelope: string
}

export interface NewSplit {
  sealed: SealedShare[]
  recovery: { index: number; checksum: Hex } | null
}

/** Splits `key` (holders' shares, plus the recovery share when `recoveryFile` is named) and seals each to its holder. */
export async function splitAndSeal(o: {
  key: Uint8Array
  teamId: string
  account: string
  version: number
  threshold: number
  holders: readonly string[]
  /** each holder's published identity public key */
  keys: ReadonlyMap<string, string>
  recoveryFile: string | null
}): Promise<NewSplit> {
  const { teamId, account, version } = o
  const n = o.holders.length + (o.recoveryFile ? 1 : 0)
  const shares = await splitKey(o.key, n, o.threshold)
  try {
    const sealed = o.holders.map((holder, i) => {
      const index = shares[i]![shares[i]!.length - 1]!
      const env = sealShare(hexToBytes(o.keys.get(holder) as Hex), shares[i]!, shareAad({ teamId, account, version, index, holder }))
      return { holder, index, envelope: JSON.stringify(env) }
    })
    let recovery: NewSplit['recovery'] = null
    if (o.recoveryFile) {
      const share = shares[n - 1]!
      const file = recoveryShare({ teamId, account, version, threshold: o.threshold, shares: n, share })
      writeFileSync(o.recoveryFile, JSON.stringify(file, null, 2) + '\n', { mode: 0o600, flag: 'wx' })
      recovery = { index: share[share.length - 1]!, checksum: file.checksum as Hex }
    }
    return { sealed, recovery }
  } finally {
    for (const s of shares) s.fill(0)
  }
}

/** Stores the sealed shares and returns the record the chain's custody entry (or seal) carries. */
export async function storeSplit(
  store: CustodyStore,
  o: { account: string; version: number; threshold: number },
  split: NewSplit,
): Promise<CustodyRecord> {
  const { account, version } = o
  await store.putShares(split.sealed.map((s) => ({ account, version, holder: s.holder, index: s.index, envelope: s.envelope })))
  return {
    account,
    version,
    threshold: o.threshold,
    holders: split.sealed.map((s) => ({ address: s.holder, index: s.index })),
    recovery: split.recovery,
    sharesDigest: sharesDigest(split.sealed.map((s) => s.envelope)),
  }
}

/** This member's own share of `record` (opened with its identity key), or null when it holds none. */
export async function openOwnShare(
  vault: Vault,
  store: CustodyStore,
  teamId: string,
  record: CustodyRecord,
  me: string,
): Promise<Uint8Array | null> {
  const own = record.holders.find((h) => h.address === me)
  if (!own) return null
  const row = (await store.shares(record.account, record.version)).find((s) => s.holder === me)
  if (!row) return null
  return vault.openForIdentity(
    parseEnvelope(row.envelope),
    shareAad({ teamId, account: record.account, version: record.version, index: own.index, holder: me }),
  )
}
