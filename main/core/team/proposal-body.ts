/**
 * A proposal's body as signed into the chain: read field by field from its canonical payload (every
 * field checked, one text per value), and written back as payload text. The field readers here are
 * the lifecycle entries' too (proposals.ts).
 */
import { getAddress, isAddress } from 'viem'
import { formatAtoms, parseDecimal } from '../money/decimal'
import type { Canonical } from './canonical'
import { teamBadInput } from './errors'
import { ACTION_KINDS, USD_DECIMALS, type ActionKind } from './policy'
import type { ProposalBody } from './proposal-model'
import { ROLES, type Role } from './roster'

export type Obj = Record<string, Canonical>
export const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v)
export const bad = (m: string): never => {
  throw teamBadInput(m)
}

export function keys(o: Obj, required: string[], optional: string[] = []): void {
  for (const k of required) if (!(k in o)) bad(`${k} is missing`)
  for (const k of Object.keys(o)) if (!required.includes(k) && !optional.includes(k)) bad(`unexpected field ${k}`)
}
export function str(o: Obj, k: string, max = 200): string {
  const v = o[k]
  if (typeof v !== 'string' || v === '' || v.length > max) return bad(`${k} must be a non-empty string of at most ${max} characters`)
  return v
}
export function time(o: Obj, k: string): number {
  const v = o[k]
  if (typeof v !== 'number' || !Number.isSafeInteger(v) || v <= 0) return bad(`${k} must be a time in ms`)
  return v
}
function addr(v: unknown, what: string): string {
  if (typeof v !== 'string' || !isAddress(v, { strict: false }) || v !== v.toLowerCase()) return bad(`${what} must be a lower-case address`)
  return getAddress(v).toLowerCase()
}
function usdAtoms(v: unknown, what: string): bigint {
  if (typeof v !== 'string') return bad(`${what} must be a decimal string`)
  const atoms = parseDecimal(v, USD_DECIMALS)
  // One value, one text: "1.50" and "1.5" would hash differently.
  if (formatAtoms(atoms, USD_DECIMALS) !== v) bad(`${what} is not in its plain form (${formatAtoms(atoms, USD_DECIMALS)})`)
  return atoms
}
export const usdText = (atoms: bigint) => formatAtoms(atoms, USD_DECIMALS)
export function parseProposalBody(payload: Canonical): ProposalBody {
  if (!isObj(payload)) return bad('a proposal payload must be an object')
  const o = payload
  keys(
    o,
    [
      'network',
      'exchange',
      'account',
      'signer',
      'kind',
      'action',
      'cloid',
      'title',
      'preview',
      'usd',
      'windowUsd',
      'destination',
      'policyVersion',
      'rule',
      'needs',
      'at',
      'expiresAt',
    ],
    ['replay'],
  )
  if (
    o.replay !== undefined &&
    !(
      isObj(o.replay) &&
      typeof o.replay.channel === 'string' &&
      /^[a-z][a-zA-Z.]{1,60}$/.test(o.replay.channel) &&
      isObj(o.replay.args) &&
      Object.keys(o.replay).length === 2
    )
  )
    bad('replay must be {channel, args}')
  if (!ACTION_KINDS.includes(o.kind as ActionKind)) bad(`unknown action kind ${String(o.kind)}`)
  if (!isObj(o.action)) bad('action must be an object')
  if (!Array.isArray(o.preview) || o.preview.length > 50 || o.preview.some((l) => typeof l !== 'string' || l.length > 500))
    bad('preview must be at most 50 lines of text')
  if (!isObj(o.needs)) bad('needs must be {count, roles}')
  const needs = o.needs as Obj
  const count = needs.count
  if (typeof count !== 'number' || !Number.isInteger(count) || count < 0) bad('needs.count must be a whole number')
  // A recorded allowed write needs nobody (count 0, no roles); a proposal needs at least one approval from named roles.
  if (!Array.isArray(needs.roles) || (count === 0) !== (needs.roles.length === 0) || needs.roles.some((r) => !ROLES.includes(r as Role)))
    bad(count === 0 ? 'needs.roles must be empty when no approval is needed' : 'needs.roles must list roles')
  if (typeof o.policyVersion !== 'number' || !Number.isInteger(o.policyVersion) || o.policyVersion < 1)
    bad('policyVersion must be a positive integer')
  return {
    network: str(o, 'network'),
    exchange: str(o, 'exchange'),
    account: addr(o.account, 'account'),
    signer: o.signer === null ? null : addr(o.signer, 'signer'),
    kind: o.kind as ActionKind,
    action: o.action as Obj,
    cloid: str(o, 'cloid', 100),
    title: str(o, 'title', 300),
    preview: o.preview as string[],
    usd: o.usd === null ? null : usdAtoms(o.usd, 'usd'),
    windowUsd: o.windowUsd === null ? null : usdAtoms(o.windowUsd, 'windowUsd'),
    destination: o.destination === null ? null : addr(o.destination, 'destination'),
    policyVersion: o.policyVersion as number,
    rule: str(o, 'rule'),
    needs: { count: count as number, roles: needs.roles as Role[] },
    at: time(o, 'at'),
    expiresAt: time(o, 'expiresAt'),
    ...(o.replay !== undefined ? { replay: o.replay as { channel: string; args: Obj } } : {}),
  }
}

/** The payload text of a proposal (canonical JSON is applied by the caller). */
export function proposalPayload(b: ProposalBody): Record<string, unknown> {
  return { ...b, usd: b.usd === null ? null : usdText(b.usd), windowUsd: b.windowUsd === null ? null : usdText(b.windowUsd) }
}
