/**
 * The offline recovery share: shown once as a file the operator stores away (paper, a safe), never
 * kept by any desk. It names what it belongs to (team, account, split version, threshold) and
 * carries a SHA-256 checksum over those fields and the share, so a mistyped or damaged file is
 * refused before it is combined with anything. With T-1 members' shares it recovers the key.
 */
import { sha256 } from '@noble/hashes/sha256'
import { bytesToHex, hexToBytes } from 'viem'
import { DeskError } from '../../errors/desk-error'

export const RECOVERY_FORMAT = 'treasury-desk/custody-recovery-share'

export interface RecoveryShare {
  format: typeof RECOVERY_FORMAT
  v: 1
  teamId: string
  account: string
  version: number
  threshold: number
  shares: number
  /** the share itself (hex) */
  share: string
  /** sha256 over the fields above, as `checksumOf` writes them (hex) */
  checksum: string
}

function checksumOf(r: Omit<RecoveryShare, 'checksum'>): string {
  const text = [
    r.format,
    r.v,
    r.teamId.toLowerCase(),
    r.account.toLowerCase(),
    r.version,
    r.threshold,
    r.shares,
    r.share.toLowerCase(),
  ].join('|')
  return bytesToHex(sha256(new TextEncoder().encode(text)))
}

export function recoveryShare(p: Omit<RecoveryShare, 'format' | 'v' | 'checksum' | 'share'> & { share: Uint8Array }): RecoveryShare {
  const body = {
    format: RECOVERY_FORMAT as typeof RECOVERY_FORMAT,
    v: 1 as const,
    teamId: p.teamId.toLowerCase(),
    account: p.account.toLowerCase(),
    version: p.version,
    threshold: p.threshold,
    shares: p.shares,
    share: bytesToHex(p.share),
  }
  return { ...body, checksum: checksumOf(body) }
}

const bad = (why: string) => new DeskError('RecoveryShareInvalid', `the recovery share file is not usable: ${why}`)

/** Parses and checks a recovery share file; the share bytes are returned for the caller to zero. */
export function parseRecoveryShare(text: string): { meta: Omit<RecoveryShare, 'share'>; share: Uint8Array } {
  let o: Partial<RecoveryShare>
  try {
    o = JSON.parse(text) as Partial<RecoveryShare>
  } catch {
    throw bad('not JSON')
  }
  if (o.format !== RECOVERY_FORMAT || o.v !== 1) throw bad('not a Treasury Desk recovery share')
  for (const k of ['teamId', 'account', 'share', 'checksum'] as const)
    if (typeof o[k] !== 'string' || !/^0x[0-9a-f]+$/i.test(o[k])) throw bad(`${k} is missing or not hex`)
  for (const k of ['version', 'threshold', 'shares'] as const)
    if (typeof o[k] !== 'number' || !Number.isInteger(o[k]) || o[k] < 1) throw bad(`${k} is missing`)
  const r = o as RecoveryShare
  const { checksum, ...rest } = r
  if (checksumOf(rest) !== checksum.toLowerCase()) throw bad('its checksum does not match (mistyped or damaged)')
  const { share, ...meta } = r
  return { meta, share: hexToBytes(share as `0x${string}`) }
}
