/**
 * The team roster as the chain defines it: who is in the team, with which roles, and how many
 * admins must sign a change. Built from the genesis payload, changed only by roster entries; every
 * function here is pure and refuses a payload that would break the roster (unknown role, duplicate
 * member, fewer admins than the quorum).
 */
import { getAddress, isAddress, type Address, type Hex } from 'viem'
import type { Canonical } from './canonical'
import { teamBadInput } from './errors'

export const ROLES = ['viewer', 'trader', 'approver', 'admin'] as const
export type Role = (typeof ROLES)[number]

export interface Member {
  /** lower-case address of the operator's identity key */
  address: Address
  name: string
  roles: Role[]
}

export interface Roster {
  teamId: Hex
  teamName: string
  adminQuorum: number
  /** by lower-case address */
  members: ReadonlyMap<string, Member>
}

export interface MemberInput {
  address: string
  name: string
  roles: Role[]
}

export interface GenesisPayload {
  teamId: Hex
  teamName: string
  adminQuorum: number
  members: MemberInput[]
}

export type RosterChange =
  | { op: 'add'; address: string; name: string; roles: Role[] }
  | { op: 'remove'; address: string }
  | { op: 'roles'; address: string; roles: Role[] }
  | { op: 'quorum'; adminQuorum: number }

export interface RosterPayload {
  changes: RosterChange[]
}

type Obj = Record<string, Canonical>
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v)

function str(o: Obj, key: string, max = 200): string {
  const v = o[key]
  if (typeof v !== 'string' || v.trim() === '' || v.length > max)
    throw teamBadInput(`${key} must be a non-empty string of at most ${max} characters`)
  return v
}

function quorum(v: unknown): number {
  if (typeof v !== 'number' || !Number.isInteger(v) || v < 1 || v > 100) throw teamBadInput('adminQuorum must be an integer from 1 to 100')
  return v
}

function address(v: unknown): Address {
  if (typeof v !== 'string' || !isAddress(v, { strict: false })) throw teamBadInput(`not an address: ${String(v)}`)
  return getAddress(v).toLowerCase() as Address
}

function roles(v: unknown): Role[] {
  if (!Array.isArray(v) || v.length === 0) throw teamBadInput('roles must be a non-empty list')
  const out = new Set<Role>()
  for (const r of v) {
    if (!ROLES.includes(r as Role)) throw teamBadInput(`unknown role ${String(r)} (roles: ${ROLES.join(', ')})`)
    if (out.has(r as Role)) throw teamBadInput(`role ${String(r)} listed twice`)
    out.add(r as Role)
  }
  return ROLES.filter((r) => out.has(r))
}

function member(v: unknown): Member {
  if (!isObj(v)) throw teamBadInput('a member must be an object')
  return { address: address(v.address), name: str(v, 'name'), roles: roles(v.roles) }
}

export function adminsOf(r: Roster): Set<string> {
  return new Set([...r.members.values()].filter((m) => m.roles.includes('admin')).map((m) => m.address))
}

function checked(r: Roster): Roster {
  const admins = adminsOf(r).size
  if (admins < r.adminQuorum)
    throw teamBadInput(`the roster would have ${admins} admin(s), fewer than the admin quorum of ${r.adminQuorum}`)
  return r
}

export function rosterFromGenesis(payload: Canonical): Roster {
  if (!isObj(payload)) throw teamBadInput('genesis payload must be an object')
  const teamId = payload.teamId
  if (typeof teamId !== 'string' || !/^0x[0-9a-f]{64}$/.test(teamId)) throw teamBadInput('teamId must be 32 bytes of lower-case hex')
  if (!Array.isArray(payload.members) || payload.members.length === 0) throw teamBadInput('genesis lists no members')
  const members = new Map<string, Member>()
  for (const m of payload.members.map(member)) {
    if (members.has(m.address)) throw teamBadInput(`member ${m.address} listed twice`)
    members.set(m.address, m)
  }
  return checked({ teamId: teamId as Hex, teamName: str(payload, 'teamName'), adminQuorum: quorum(payload.adminQuorum), members })
}

export function applyRosterChanges(r: Roster, payload: Canonical): Roster {
  if (!isObj(payload) || !Array.isArray(payload.changes) || payload.changes.length === 0)
    throw teamBadInput('a roster entry carries a non-empty list of changes')
  const members = new Map(r.members)
  let adminQuorum = r.adminQuorum
  for (const c of payload.changes) {
    if (!isObj(c)) throw teamBadInput('a roster change must be an object')
    switch (c.op) {
      case 'add': {
        const m = member(c)
        if (members.has(m.address)) throw teamBadInput(`${m.address} is already a member`)
        members.set(m.address, m)
        break
      }
      case 'remove': {
        const a = address(c.address)
        if (!members.delete(a)) throw teamBadInput(`${a} is not a member`)
        break
      }
      case 'roles': {
        const a = address(c.address)
        const m = members.get(a)
        if (!m) throw teamBadInput(`${a} is not a member`)
        members.set(a, { ...m, roles: roles(c.roles) })
        break
      }
      case 'quorum':
        adminQuorum = quorum(c.adminQuorum)
        break
      default:
        throw teamBadInput(`unknown roster change ${String(c.op)}`)
    }
  }
  return checked({ ...r, adminQuorum, members })
}
