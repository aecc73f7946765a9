/**
 * Team policy as stored in the chain: a version, named account groups and ordered rules, first
 * match wins. Each rule matches on action kind, account or account group, the write's USD value,
 * the USD value over the rolling window, destination, and, for guardrail changes, their direction
 * (tighten or loosen), and allows, blocks or requires N approvals from named roles. `evaluate` is pure; no match blocks (default deny). The
 * single-desk guardrails (core/policy) apply in any case.
 */
import { getAddress, isAddress } from 'viem'
import { parseDecimal } from '../money/decimal'
import type { Canonical } from './canonical'
import { DeskError } from '../errors/desk-error'
import { teamBadInput } from './errors'
import { ROLES, type Role } from './roster'

export const ACTION_KINDS = [
  'settle',
  'repay',
  'transfer',
  'withdraw',
  'activation',
  'agent_approve',
  'agent_revoke',
  'agent_rotate',
  'earn_request',
  'earn_claim',
  'earn_cancel',
  'order',
  'cancel',
  'halt',
  'resume',
  'address_book',
  'limits',
  // The vault's custody changes on a desk bound to a team (features/team/vault-changes.ts).
  'key_export',
  'key_add',
  'key_remove',
  'vault_passphrase',
] as const
export type ActionKind = (typeof ACTION_KINDS)[number]

/**
 * USD values are decimal strings at the edge and the desk's USD atoms inside: 8 decimals, the same
 * as session/valuation.ts USD_DECIMALS (the write pipeline hands the decision step USD atoms). The
 * team layer may not import session, so the value is repeated here; policy.test.ts pins the two equal.
 */
export const USD_DECIMALS = 8

/**
 * Which way a guardrail change moves (settings.ts: settingsDirection): a limit lowered or added,
 * an address removed -> 'tighten'; a limit raised or removed, an address added -> 'loosen'.
 */
export const DIRECTIONS = ['tighten', 'loosen'] as const
export type Direction = (typeof DIRECTIONS)[number]
/** The only kinds a direction means something for: a rule with a direction names these alone. */
export const DIRECTED_KINDS = ['limits', 'address_book'] as const satisfies readonly ActionKind[]

export type Effect = { effect: 'allow' } | { effect: 'block' } | { effect: 'approve'; count: number; roles: Role[] }

export interface Rule {
  id: string
  kinds?: ActionKind[]
  accounts?: string[]
  /** names of the policy's account groups: the rule matches an account in any of them (or in `accounts`) */
  groups?: string[]
  /** the named groups' members, resolved when the policy is read (not stored: the groups are) */
  groupMembers?: ReadonlySet<string>
  /** the rule matches when the write's USD value is at least this */
  minUsd?: bigint
  /** ... or when the rolling-window total including this write is at least this */
  minWindowUsd?: bigint
  destinations?: string[]
  /** a guardrail change (limits, address book) in this direction only */
  direction?: Direction
  then: Effect
}

export interface Policy {
  version: number
  rules: Rule[]
  /**
   * Account groups by name, signed with the policy: every desk matches the same members (a desk's
   * own account groups are its operator's labels, known to no other desk, so they cannot be the basis).
   */
  groups: Record<string, string[]>
  /**
   * The team's names for addresses (its accounts and its address book's destinations), signed with
   * the policy: every desk, an approver holding no account included, shows the same names.
   */
  names: Record<string, string>
}

/** At most this many named addresses in a policy; a name is 1 to 64 printable characters. */
export const MAX_NAMES = 500
// Printable: no C0 control character, no DEL (a name is shown on every desk's screens).
const ADDRESS_NAME = /^[^\p{Cc}]{1,64}$/u

function addressNames(v: unknown): Record<string, string> {
  if (v === undefined) return {}
  if (!isObj(v)) throw teamBadInput('names must be an object: address -> name')
  const entries = Object.entries(v)
  if (entries.length > MAX_NAMES) throw teamBadInput(`at most ${MAX_NAMES} named addresses`)
  const out: Record<string, string> = {}
  for (const [a, name] of entries) {
    const address = addr(a)
    if (address !== a) throw teamBadInput(`names: ${a} must be written lower-case`)
    if (typeof name !== 'string' || name.trim() !== name || !ADDRESS_NAME.test(name))
      throw teamBadInput(`names: the name of ${a} must be 1 to 64 printable characters, without surrounding spaces`)
    out[address] = name
  }
  return out
}

/** A group's name: what a rule names it by. */
export const GROUP_NAME = /^[A-Za-z0-9][A-Za-z0-9 ._-]{0,63}$/
/** At most this many groups, and accounts in each. */
export const MAX_GROUPS = 50
export const MAX_GROUP_ACCOUNTS = 200

/** Kinds whose writes move value: an unknown USD value of one of these is judged at its worst case. */
export const VALUE_KINDS: readonly ActionKind[] = ['transfer', 'withdraw', 'settle', 'repay', 'activation', 'earn_request', 'order']

/**
 * How a USD value the desk could not price (null) is read. `worst-case`: every decision a desk
 * makes (issue 30.2). `zero`: how desks before that fix read it; the chain verifier keeps it for
 * the entries they wrote (see `usdReadingOf`), so an existing chain still verifies.
 */
export type UnknownUsdReading = 'worst-case' | 'zero'

/**
 * The USD a write of `kind` is judged at: its value; for a write that moves none (an API key, a
 * claim), zero; for a value-moving write without a fresh mark, null (unknown: `evaluate` judges it
 * at its worst case), or zero under the older reading.
 */
export function judgedUsd(kind: string, usd: bigint | null, reading: UnknownUsdReading = 'worst-case'): bigint | null {
  if (usd !== null) return usd
  return reading === 'worst-case' && VALUE_KINDS.includes(kind as ActionKind) ? null : 0n
}

/**
 * The reading a proposal entry was judged under, from its own figures. A desk judging at the worst
 * case records an unknown window whenever anything was unknown (a write of unknown value has an
 * unknown window), so an entry carrying a window total was judged with every value known, or by an
 * older desk reading unknown as zero: both readings agree in the first case, the second is how it
 * was written. Accepting it costs nothing: the verifier cannot check a USD figure anyway (it is
 * the initiator's reading of its own marks), and an initiator could as well write a small value.
 */
export function usdReadingOf(p: { windowUsd: bigint | null }): UnknownUsdReading {
  return p.windowUsd === null ? 'worst-case' : 'zero'
}

/** What a proposal says about an unknown USD value (screens, review, CLI, the proposed write's outcome); null when all were known. */
export function unknownUsdNote(p: { kind: string; usd: bigint | null; windowUsd: bigint | null }): string | null {
  const valueUnknown = judgedUsd(p.kind, p.usd) === null
  if (usdReadingOf(p) === 'zero')
    return valueUnknown ? 'value unknown when proposed (no fresh mark); an older desk judged it as zero' : null
  return valueUnknown
    ? 'value unknown when proposed (no fresh mark): the team policy judged it at its worst case'
    : "the account's 24 h total was unknown when proposed (a write in it had no USD value): the team policy judged it at its worst case"
}

export interface Intent {
  kind: ActionKind
  account: string
  /** the write's USD value; null: unknown (no fresh mark), judged at its worst case */
  usd: bigint | null
  /** USD moved in the rolling window, this write included; null: unknown (this write's or a counted one's value is) */
  windowUsd: bigint | null
  destination?: string
  /** a guardrail change's direction (none for writes, resume, or a change recorded without one) */
  direction?: Direction
}

export type Decision = (Effect & { rule: string }) | { effect: 'block'; rule: null; reason: 'no rule matches' }

type Obj = Record<string, Canonical>
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v)

function list<T extends string>(v: unknown, what: string, check: (s: string) => T): T[] | undefined {
  if (v === undefined) return undefined
  if (!Array.isArray(v) || v.length === 0) throw teamBadInput(`${what} must be a non-empty list when given`)
  return v.map((x) => {
    if (typeof x !== 'string') throw teamBadInput(`${what} holds a non-string`)
    return check(x)
  })
}

const addr = (s: string) => {
  if (!isAddress(s, { strict: false })) throw teamBadInput(`not an address: ${s}`)
  return getAddress(s).toLowerCase()
}

function usd(v: unknown, what: string): bigint | undefined {
  if (v === undefined) return undefined
  if (typeof v !== 'string') throw teamBadInput(`${what} must be a decimal string`)
  return parseDecimal(v, USD_DECIMALS)
}

function effect(v: unknown): Effect {
  if (!isObj(v)) throw teamBadInput('then must be an object')
  if (v.effect === 'allow' || v.effect === 'block') return { effect: v.effect }
  if (v.effect !== 'approve') throw teamBadInput(`unknown effect ${String(v.effect)}`)
  if (typeof v.count !== 'number' || !Number.isInteger(v.count) || v.count < 1 || v.count > 20)
    throw teamBadInput('approve.count must be an integer from 1 to 20')
  const roles = list(v.roles, 'approve.roles', (r) => {
    if (!ROLES.includes(r as Role)) throw teamBadInput(`unknown role ${r}`)
    return r as Role
  })
  if (!roles) throw teamBadInput('approve.roles is required')
  return { effect: 'approve', count: v.count, roles }
}

function accountGroups(v: unknown): Record<string, string[]> {
  if (v === undefined) return {}
  if (!isObj(v)) throw teamBadInput('groups must be an object: group name -> accounts')
  const names = Object.keys(v)
  if (names.length > MAX_GROUPS) throw teamBadInput(`at most ${MAX_GROUPS} account groups`)
  const out: Record<string, string[]> = {}
  for (const name of names) {
    if (!GROUP_NAME.test(name)) throw teamBadInput(`group name "${name}": letters, digits, space, dot, dash, underscore; at most 64`)
    const members = list(v[name], `group ${name}`, addr)!
    if (members.length > MAX_GROUP_ACCOUNTS) throw teamBadInput(`group ${name}: at most ${MAX_GROUP_ACCOUNTS} accounts`)
    if (new Set(members).size !== members.length) throw teamBadInput(`group ${name} lists an account twice`)
    out[name] = members
  }
  return out
}

function rule(v: unknown, i: number, groups: Record<string, string[]>): Rule {
  if (!isObj(v)) throw teamBadInput(`rule ${i} must be an object`)
  if (typeof v.id !== 'string' || v.id === '') throw teamBadInput(`rule ${i} needs an id`)
  const r: Rule = { id: v.id, then: effect(v.then) }
  const kinds = list(v.kinds, 'kinds', (k) => {
    if (!ACTION_KINDS.includes(k as ActionKind)) throw teamBadInput(`unknown action kind ${k}`)
    return k as ActionKind
  })
  if (kinds) r.kinds = kinds
  const accounts = list(v.accounts, 'accounts', addr)
  if (accounts) r.accounts = accounts
  const named = list(v.groups, 'groups', (g) => {
    if (!Object.hasOwn(groups, g)) throw teamBadInput(`rule ${r.id}: no account group named "${g}" in this policy`)
    return g
  })
  if (named) {
    r.groups = named
    r.groupMembers = new Set(named.flatMap((g) => groups[g]!))
  }
  const destinations = list(v.destinations, 'destinations', addr)
  if (destinations) r.destinations = destinations
  const minUsd = usd(v.minUsd, 'minUsd')
  if (minUsd !== undefined) r.minUsd = minUsd
  const minWindowUsd = usd(v.minWindowUsd, 'minWindowUsd')
  if (minWindowUsd !== undefined) r.minWindowUsd = minWindowUsd
  if (v.direction !== undefined) r.direction = direction(v.direction, r)
  return r
}

/**
 * A direction is checked where the rule is written: an unknown one, or one on a rule that could
 * match a write (no kinds, or a kind other than limits and address book), would silently never
 * match or match nothing the author meant.
 */
function direction(v: unknown, r: Rule): Direction {
  if (!DIRECTIONS.includes(v as Direction)) throw teamBadInput(`rule ${r.id}: direction must be ${DIRECTIONS.join(' or ')}`)
  if (!r.kinds || r.kinds.some((k) => !(DIRECTED_KINDS as readonly string[]).includes(k)))
    throw teamBadInput(`rule ${r.id}: a direction applies to ${DIRECTED_KINDS.join(' and ')} changes only: name only those kinds`)
  return v as Direction
}

/** A policy entry's payload; its version must follow the current one by exactly 1. */
export function policyFromPayload(payload: Canonical, previousVersion: number): Policy {
  if (!isObj(payload) || !Array.isArray(payload.rules)) throw teamBadInput('a policy entry carries {version, rules, groups?}')
  if (payload.version !== previousVersion + 1)
    throw teamBadInput(`policy version must be ${previousVersion + 1}, got ${String(payload.version)}`)
  const groups = accountGroups(payload.groups)
  const names = addressNames(payload.names)
  const rules = payload.rules.map((r, i) => rule(r, i, groups))
  const ids = new Set(rules.map((r) => r.id))
  if (ids.size !== rules.length) throw teamBadInput('rule ids must be unique')
  return { version: previousVersion + 1, rules, groups, names }
}

/** Does rule `r` match this write, its USD bounds aside? */
function appliesTo(r: Rule, i: Intent): boolean {
  if (r.kinds && !r.kinds.includes(i.kind)) return false
  if (r.accounts || r.groupMembers) {
    const a = i.account.toLowerCase()
    if (!r.accounts?.includes(a) && !r.groupMembers?.has(a)) return false
  }
  if (r.destinations && (i.destination === undefined || !r.destinations.includes(i.destination.toLowerCase()))) return false
  if (r.direction && i.direction !== r.direction) return false
  return true
}

/** Do these known figures meet rule `r`'s USD bounds (a rule without bounds always does)? */
function meets(r: Rule, usd: bigint, windowUsd: bigint): boolean {
  if (r.minUsd === undefined && r.minWindowUsd === undefined) return true
  return (r.minUsd !== undefined && usd >= r.minUsd) || (r.minWindowUsd !== undefined && windowUsd >= r.minWindowUsd)
}

/** The first of `rules` (those that apply to the write) whose bounds these figures meet; none blocks. */
function firstMatch(rules: readonly Rule[], usd: bigint, windowUsd: bigint): Decision {
  for (const r of rules) if (meets(r, usd, windowUsd)) return { ...r.then, rule: r.id }
  return { effect: 'block', rule: null, reason: 'no rule matches' }
}

/** How restrictive a decision is: block, then approvals (more is stricter), then allow. */
const strictness = (d: Decision) => (d.effect === 'block' ? 1000 : d.effect === 'approve' ? d.count : 0)

/**
 * The policy's decision: the first rule that matches; no match blocks. An unknown USD value (or
 * window total) is judged at its worst case: the strictest decision the rules give for any value it
 * could take (issue 30.2), so a write that needs approvals, or is blocked, at some value is so now,
 * and a rule that allows only from some value on does not allow it. Rules only test `value >= bound`,
 * so the decision changes only at a bound: trying zero and each bound covers every value. The window
 * includes this write, so it is never below its value. Among equally strict decisions, the one at
 * the larger value wins (what a large unknown value would meet), so the result is deterministic and
 * every desk's verifier reaches the same one.
 */
export function evaluate(rules: readonly Rule[], intent: Intent): Decision {
  const applying = rules.filter((r) => appliesTo(r, intent))
  if (intent.usd !== null && intent.windowUsd !== null) return firstMatch(applying, intent.usd, intent.windowUsd)
  // Only the bounds of rules that apply to this write can change its decision.
  const candidates = (known: bigint | null, bound: (r: Rule) => bigint | undefined) =>
    known !== null ? [known] : [...new Set([0n, ...applying.flatMap((r) => bound(r) ?? [])])].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0))
  let worst: Decision | null = null
  for (const usd of candidates(intent.usd, (r) => r.minUsd))
    for (const w of candidates(intent.windowUsd, (r) => r.minWindowUsd)) {
      const d = firstMatch(applying, usd, intent.windowUsd === null && w < usd ? usd : w)
      if (worst === null || strictness(d) >= strictness(worst)) worst = d
    }
  return worst!
}

/**
 * Policy authoring refuses a rule naming `halt` that blocks it or makes it wait for approvals: an
 * emergency halt stays immediate on every desk (a second person must never be needed to stop
 * trading), so such a rule could never do what it says. The halt is never judged by the policy at
 * run time either; a rule without `kinds` (every kind) therefore does not reach it.
 */
export function refuseGatedHalt(rules: readonly unknown[]): void {
  for (const r of rules) {
    const o = (r ?? {}) as { id?: unknown; kinds?: unknown; then?: { effect?: unknown } }
    if (Array.isArray(o.kinds) && o.kinds.includes('halt') && o.then?.effect !== 'allow')
      throw new DeskError(
        'TeamPolicyGatesHalt',
        `rule ${String(o.id)} would ${o.then?.effect === 'block' ? 'block' : 'put approvals before'} the emergency halt: ` +
          'a halt is always immediate; name halt only in an allow rule',
        { rule: typeof o.id === 'string' ? o.id : null },
      )
  }
}
