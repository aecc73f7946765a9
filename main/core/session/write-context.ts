import type { Address } from 'viem'
import { DeskError } from '../errors/desk-error'
import type { EarnClient } from '../exchange/earn/earn-client'
import type { TradeSubmitter, SubmitResult } from '../exchange/trade/submitter'
import type { Journal } from '../journal'
import { formatAtoms, parseDecimal } from '../money/decimal'
import type { AccountReads, AssetInfo } from './account-reads'

/** What the write services need for one network. */
export interface WriteContext {
  network: string
  journal: Journal
  submitter: TradeSubmitter
  reads: AccountReads
  /** True when the vault holds the owner key of `owner` (not watch-only). */
  hasOwnerKey(owner: Address): boolean
}

/** What the earn services need for one network. */
export interface EarnServiceContext {
  earn: EarnClient
  hasOwnerKey(owner: Address): boolean
  now?: () => number
}

/** A write's outcome as plain data, decimal strings and ids only. */
export interface WriteOutcome {
  journalId: number
  /** cloid (or local key) the journal files the write under */
  cloid: string
  state: string
  finalStatus: string | null
  code: string | null
  txHash: string | null
  traceId: string | null
}

export function outcomeOf(r: SubmitResult): WriteOutcome {
  const s = r.submission
  return { journalId: s.id, cloid: s.key, state: s.state, finalStatus: s.finalStatus, code: s.code, txHash: s.txHash, traceId: s.traceId }
}

const ADDRESS = /^0x[0-9a-fA-F]{40}$/

export function checkAddress(value: string, field: string): Address {
  if (typeof value !== 'string' || !ADDRESS.test(value))
    throw new DeskError('InvalidAddress', `${field} must be a 20-byte 0x address`, { field })
  return value.toLowerCase() as Address
}

/** An asset by id ("1") or symbol ("USDC", case-insensitive). */
export async function resolveAsset(reads: AccountReads, asset: string | number): Promise<AssetInfo> {
  const all = await reads.assets()
  const s = String(asset).trim()
  const found = /^[0-9]+$/.test(s) ? all.find((a) => a.assetId === Number(s)) : all.find((a) => a.symbol.toLowerCase() === s.toLowerCase())
  if (!found)
    throw new DeskError('UnknownAsset', `no asset "${s}" on this network (known: ${all.map((a) => a.symbol).join(', ')})`, { asset: s })
  return found
}

/** Display amount -> atoms at the asset's decimals; more decimals than allowed is refused, never rounded. */
export function parsePositiveAmount(amount: string, decimals: number, field = 'amount'): bigint {
  const atoms = parseDecimal(amount, decimals)
  if (atoms <= 0n) throw new DeskError('InvalidAmount', `${field} must be greater than zero`, { field })
  return atoms
}

export function fmt(atoms: bigint, decimals: number): string {
  return formatAtoms(atoms, decimals)
}

export function requireOwnerKey(ctx: WriteContext, owner: Address, role: string): void {
  if (!ctx.hasOwnerKey(owner)) {
    throw new DeskError(
      'OwnerKeyMissing',
      `the ${role} ${owner} has no owner key in the vault (watch-only or unknown), so it cannot sign this`,
      { owner },
    )
  }
}

export function short(a: string): string {
  return `${a.slice(0, 6)}…${a.slice(-4)}`
}
