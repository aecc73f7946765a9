/**
 * The team this vault is bound to, sealed in the vault (team secret `teamBinding`): the genesis it
 * joined, this desk's operator, and the highest chain head it has verified. Sealed rather than kept
 * in team.json, so moving a plain file away or copying the vault to a fresh data directory does not
 * unbind the desk or lower its head; the head is never lowered (a shorter or different chain is a
 * rollback or a fork, as a Certificate Transparency monitor treats a tree head it kept).
 */
import type { Hex } from 'viem'
import { DeskError } from '../../errors/desk-error'
import type { Vault } from '../../vault'

export interface ChainHead {
  seq: bigint
  digest: Hex
}

export interface TeamBinding {
  /** the genesis digest of the team this vault joined */
  genesis: Hex
  /** this desk's operator identity address in that team */
  member: string
  /** the highest head this desk verified; null until the first verification */
  head: ChainHead | null
}

const NAME = 'teamBinding'
const HEX32 = /^0x[0-9a-f]{64}$/

function corrupt(what: string): DeskError {
  return new DeskError('VaultCorrupt', `the team binding sealed in the vault is damaged (${what})`)
}

/** The binding sealed in this (unlocked) vault, or null when it never joined a team. */
export function readBinding(vault: Vault): TeamBinding | null {
  const text = vault.teamSecret(NAME)
  if (text === null) return null
  let o: { genesis?: unknown; member?: unknown; head?: { seq?: unknown; digest?: unknown } | null }
  try {
    o = JSON.parse(text) as typeof o
  } catch {
    throw corrupt('not JSON')
  }
  if (typeof o.genesis !== 'string' || !HEX32.test(o.genesis)) throw corrupt('genesis')
  if (typeof o.member !== 'string') throw corrupt('member')
  let head: ChainHead | null = null
  if (o.head) {
    if (typeof o.head.seq !== 'string' || !/^\d{1,19}$/.test(o.head.seq) || typeof o.head.digest !== 'string' || !HEX32.test(o.head.digest))
      throw corrupt('head')
    head = { seq: BigInt(o.head.seq), digest: o.head.digest as Hex }
  }
  return { genesis: o.genesis as Hex, member: o.member, head }
}

async function write(vault: Vault, b: TeamBinding): Promise<void> {
  const head = b.head ? { seq: b.head.seq.toString(), digest: b.head.digest.toLowerCase() } : null
  await vault.setTeamSecret(NAME, JSON.stringify({ genesis: b.genesis.toLowerCase(), member: b.member.toLowerCase(), head }))
}

/** Binds the vault to `genesis` (joining or creating a team); a vault bound to another team is refused. */
export async function bindVault(vault: Vault, genesis: Hex, member: string): Promise<TeamBinding> {
  const now = readBinding(vault)
  if (now && now.genesis !== genesis.toLowerCase()) throw boundElsewhere(now, genesis)
  if (now) return now
  const b: TeamBinding = { genesis: genesis.toLowerCase() as Hex, member: member.toLowerCase(), head: null }
  await write(vault, b)
  return b
}

/** Keeps `head` as the highest verified one when it is higher than the kept one (never lowers it). */
export async function keepHead(vault: Vault, genesis: Hex, head: ChainHead): Promise<void> {
  const now = readBinding(vault)
  if (!now) return
  if (now.genesis !== genesis.toLowerCase()) throw boundElsewhere(now, genesis)
  if (now.head && now.head.seq >= head.seq) return
  await write(vault, { ...now, head: { seq: head.seq, digest: head.digest.toLowerCase() as Hex } })
}

/** Unbinds the vault: only after the team's chain records this desk leaving (or its removal). */
export async function unbindVault(vault: Vault): Promise<void> {
  await vault.dropTeamSecret(NAME)
}

export function boundElsewhere(b: TeamBinding, genesis: string | undefined): DeskError {
  return new DeskError(
    'TeamBindingMismatch',
    `this vault is bound to the team with genesis ${b.genesis.slice(0, 12)}…, ` +
      `${genesis ? `not ${genesis.slice(0, 12)}…` : 'and this desk has no team configured'}: team writes are refused. Point the desk back at its team ` +
      `(desk team configure), or leave the team through its chain first.`,
    { boundGenesis: b.genesis, configuredGenesis: genesis ?? null },
  )
}
