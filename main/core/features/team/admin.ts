/**
 * Joining and running a team: the store's connection (password kept in the vault), the operator's
 * identity key, the genesis, and the admin-signed roster and policy entries.
 */
import { verifyTypedData, type Hex } from 'viem'
import type { Address, TeamChangeView, TeamRuleView } from '../../../contract/types'
import { DeskError } from '../../errors/desk-error'
import {
  TeamErrors,
  TeamStore,
  adminsOf,
  applyRosterChanges,
  atHead,
  changeDigest,
  changeTypedData,
  custodyEntry,
  custodyResplitEntry,
  genesisEntry,
  policyEntry,
  policyFromPayload,
  rosterEntry,
  sealEntry,
  signedEntry,
  signsAsChange,
  type EntrySignature,
  type PendingChange,
  type Roster,
  type RosterChange,
  type TeamState,
  type UnsignedEntry,
  type CustodyRecord,
} from '../../team'
import { custodyFromPayload, isResplit, resplitFromPayload } from '../../team/custody/record'
import type { VaultHolder } from '../vault'
import { bindVault, readBinding, unbindVault } from './binding'
import { newDeskId, withoutPassword } from './config'
import type { TeamLink } from './team-link'

/** A rule as the channel's schema validated it (addresses checked, any case). */
export type TeamRuleInput = Omit<TeamRuleView, 'accounts' | 'destinations'> & { accounts?: string[]; destinations?: string[] }

export class TeamAdmin {
  constructor(private readonly d: { link: TeamLink; vault: VaultHolder }) {}

  private async checkPassphrase(passphrase: string): Promise<void> {
    const vault = this.d.vault.requireUnlocked()
    if (!(await vault.verifyPassphrase(passphrase))) throw new DeskError('PassphraseIncorrect', 'wrong vault passphrase; nothing changed')
  }

  /** Points this desk at a team store; the password must open it before anything is kept. */
  async configure(connectionString: string, password: string, passphrase: string): Promise<void> {
    await this.checkPassphrase(passphrase)
    const cs = withoutPassword(connectionString)
    const probe = await TeamStore.open({ connectionString: cs, password })
    await probe.close()
    const vault = this.d.vault.requireUnlocked()
    await vault.setTeamSecret('teamStorePassword', password)
    const link = this.d.link
    await link.release('reconfigured')
    // A vault bound to a team keeps trusting that team's genesis wherever the desk points (binding.ts):
    // another store holding another team is refused, never adopted.
    const bound = readBinding(vault)
    link.setConfig({
      connectionString: cs,
      deskId: link.config?.deskId ?? newDeskId(),
      ...(bound ? { genesisDigest: bound.genesis } : {}),
    })
    await link.open()
  }

  /** This operator's identity key (created in the vault on first use; never an account key). */
  async join(passphrase: string): Promise<{ address: Address }> {
    await this.checkPassphrase(passphrase)
    const vault = this.d.vault.requireUnlocked()
    const address = vault.identityAddress() ?? (await vault.createIdentityKey())
    return { address: address.toLowerCase() as Address }
  }

  /**
   * Leaves the team the vault is bound to. Only the team can let a member go: the verified roster
   * must no longer hold this operator (an admin-quorum roster entry removed them, which every desk
   * sees). Then the binding, the store password and team.json go, and the desk works alone.
   */
  async leave(passphrase: string): Promise<void> {
    await this.checkPassphrase(passphrase)
    const vault = this.d.vault.requireUnlocked()
    const bound = readBinding(vault)
    if (!bound) throw new DeskError('TeamNotBound', 'this vault is not bound to a team: there is nothing to leave')
    const { roster } = await this.d.link.roster()
    const me = vault.identityAddress()?.toLowerCase()
    if (me && roster.members.has(me))
      throw new DeskError(
        TeamErrors.refused,
        `${roster.members.get(me)!.name} is still a member of ${roster.teamName}: a member leaves once the team's admins remove them (desk team ` +
          `members remove ${me}), so every desk sees it`,
      )
    await unbindVault(vault)
    if (vault.teamSecret('teamStorePassword') !== null) await vault.dropTeamSecret('teamStorePassword')
    await this.d.link.forget()
  }

  /** The genesis: this operator as the first admin (and trader); the desk trusts this chain from now on. */
  async init(teamName: string, name: string, passphrase: string): Promise<void> {
    const { address } = await this.join(passphrase)
    const link = this.d.link
    const bound = readBinding(this.d.vault.requireUnlocked())
    const alreadyJoined = (b: NonNullable<typeof bound>) =>
      new DeskError(
        'TeamAlreadyJoined',
        `this vault already belongs to the team with genesis ${b.genesis.slice(0, 12)}…: a vault is in one team at a time. It leaves only after the ` +
          `team's admins remove this operator (then desk team leave)`,
        { boundGenesis: b.genesis },
      )
    let live
    try {
      live = await link.live()
    } catch (e) {
      if (bound) throw alreadyJoined(bound)
      throw e
    }
    const { state, store } = live
    if (state.roster || state.head)
      throw new DeskError(
        'TeamAlreadyInitialised',
        `the team store already holds a team (${state.roster?.teamName ?? 'unverified'}); join it instead`,
      )
    if (bound) throw alreadyJoined(bound)
    const { teamId, entry } = genesisEntry({ teamName, adminQuorum: 1, members: [{ address, name, roles: ['admin', 'trader'] }] })
    const signed = await signedEntry(teamId, entry, [link.operator()])
    await store.append(signed)
    await bindVault(this.d.vault.requireUnlocked(), signed.digest, address)
    link.setConfig({ ...link.config!, genesisDigest: signed.digest })
    await link.refresh()
  }

  /**
   * One admin-signed roster or policy change on the freshest verified state. It is signed as a
   * change (team/entry.ts: bound to the roster and policy it builds on, not to a chain position):
   * with an admin quorum of 1 it is appended at once; above 1 it waits in the store for the other
   * admins (`team.changes.sign`) and TeamChangeNeedsAdmins says so.
   */
  private async appendAdmin(build: (state: TeamState) => UnsignedEntry): Promise<void> {
    const link = this.d.link
    const { gate, store, roster } = await link.roster()
    let entry
    try {
      entry = build(gate.report().state)
    } catch (e) {
      if (e instanceof DeskError && e.code === TeamErrors.badInput) throw new DeskError(TeamErrors.refused, e.message)
      throw e
    }
    const change: PendingChange = { id: changeDigest(roster.teamId, entry), kind: entry.kind, payload: entry.payload }
    const mine = await this.signAsAdmin(roster.teamId, change)
    if (roster.adminQuorum <= 1) return this.appendChange(change, [mine])
    await store.signChange(change, mine)
    throw new DeskError(
      'TeamChangeNeedsAdmins',
      `signed by you; the admin quorum is ${roster.adminQuorum}: ${roster.adminQuorum - 1} more admin(s) must sign it (desk team changes sign ${change.id})`,
      { changeId: change.id, signatures: 1, quorum: roster.adminQuorum },
    )
  }

  private async signAsAdmin(teamId: Hex, change: PendingChange): Promise<EntrySignature> {
    const op = this.d.link.operator()
    return { signer: op.address.toLowerCase() as Address, signature: await op.signTypedData(changeTypedData(teamId, change)) }
  }

  /**
   * Appends a change carrying its quorum at the current head (retried when another desk took the
   * seq). Checked first as every desk will check it: an entry the chain refuses is never appended.
   */
  private async appendChange(change: PendingChange, signatures: EntrySignature[]): Promise<void> {
    const link = this.d.link
    for (let attempt = 0; ; attempt++) {
      const { gate, store, state, roster } = await link.roster()
      checkChange(change, state, roster)
      if (signatures.length < roster.adminQuorum)
        throw new DeskError(TeamErrors.refused, `${signatures.length} admin signature(s), the admin quorum is ${roster.adminQuorum}`)
      const signed = sealEntry(
        roster.teamId,
        atHead(state, change as PendingChange & { kind: 'roster' | 'policy' | 'custody' }),
        signatures,
      )
      try {
        await store.append(signed)
      } catch (e) {
        if (e instanceof DeskError && e.code === TeamErrors.conflict && attempt < 5) continue
        throw e
      }
      await link.refresh()
      const after = gate.report()
      if (after.broken)
        throw new DeskError(TeamErrors.tampered, `the team chain does not verify at entry ${after.broken.seq}: ${after.broken.reason}`)
      return
    }
  }

  /** Admin changes collecting their quorum, as this desk checks them now (signatures verified, stale ones marked). */
  async changes(): Promise<TeamChangeView[]> {
    const { store, state, roster } = await this.d.link.roster()
    const me = this.d.link.facts().me
    const out: TeamChangeView[] = []
    for (const c of await store.changes()) {
      let stale: string | null = null
      try {
        checkChange(c, state, roster)
      } catch (e) {
        stale = e instanceof Error ? e.message : String(e)
      }
      const valid = stale ? [] : await validSignatures(c, c.signatures, roster)
      out.push({
        id: c.id,
        kind: c.kind === 'policy' || c.kind === 'custody' ? c.kind : 'roster',
        summary: changeSummary(c, roster),
        signers: valid.map((s) => ({ address: s.signer, name: roster.members.get(s.signer)?.name ?? null })),
        quorum: roster.adminQuorum,
        stale,
        signedByMe: me !== null && valid.some((s) => s.signer === me),
        canSign: stale === null && me !== null && adminsOf(roster).has(me) && !valid.some((s) => s.signer === me),
        at: c.createdAt.getTime(),
      })
    }
    return out
  }

  /**
   * Adds this admin's signature to a change collecting its quorum; with the quorum reached, appends it
   * to the chain. Every stored signature is re-checked (the store is not trusted); a change whose
   * roster or policy has moved on is stale: dropped, TeamChangeStale (make it again).
   */
  async signChange(id: string): Promise<{ applied: boolean; signatures: number; quorum: number }> {
    await this.requireAdmin()
    const { store, state, roster } = await this.d.link.roster()
    const c = (await store.changes()).find((x) => x.id === id)
    if (!c)
      throw new DeskError(
        'TeamChangeNotFound',
        `no admin change ${id.slice(0, 10)}… is collecting signatures (applied, dropped or never made)`,
      )
    try {
      checkChange(c, state, roster)
    } catch (e) {
      if (e instanceof DeskError && e.code === 'TeamChangeStale') await store.dropChange(c.id)
      throw e
    }
    const list = await store.signChange(c, await this.signAsAdmin(roster.teamId, c))
    const valid = await validSignatures(c, list, roster)
    if (valid.length < roster.adminQuorum) return { applied: false, signatures: valid.length, quorum: roster.adminQuorum }
    await this.appendChange(c, valid)
    await store.dropChange(c.id)
    return { applied: true, signatures: valid.length, quorum: roster.adminQuorum }
  }

  private async requireAdmin(): Promise<void> {
    const { roster } = await this.d.link.roster()
    const me = this.d.link.facts().me
    if (!me || !roster.members.get(me)?.roles.includes('admin'))
      throw new DeskError(TeamErrors.refused, 'only a team admin may change the roster or the policy')
  }

  /** Sets how many admins must sign each roster or policy change (itself a roster change, signed by the quorum now). */
  async setQuorum(adminQuorum: number): Promise<void> {
    await this.changeRoster([{ op: 'quorum', adminQuorum }])
  }

  async changeRoster(changes: RosterChange[]): Promise<void> {
    await this.requireAdmin()
    const lc = changes.map((c) => ('address' in c ? { ...c, address: c.address.toLowerCase() } : c))
    await this.appendAdmin((s) => rosterEntry(s, lc))
  }

  /** An account under team custody (or re-split): an admin-quorum change like the roster and the policy. */
  async proposeCustody(record: CustodyRecord): Promise<void> {
    await this.requireAdmin()
    await this.appendAdmin((s) => custodyEntry(s, record))
  }

  /** A re-split of a team-held account (a member left, a desk was lost), sealed later by `sealer`: admin quorum. */
  async proposeResplit(r: {
    account: string
    version: number
    threshold: number
    holders: string[]
    recovery: boolean
    sealer: string
  }): Promise<void> {
    await this.requireAdmin()
    await this.appendAdmin((s) => custodyResplitEntry(s, r))
  }

  /** `names` omitted: the team's names in force are kept (a rules-only change never drops them); {} clears them. */
  async setPolicy(rules: TeamRuleInput[], groups: Record<string, string[]> = {}, names?: Record<string, string>): Promise<void> {
    await this.requireAdmin()
    const stored = rules.map((r) => ({
      ...r,
      ...(r.accounts ? { accounts: r.accounts.map((a) => a.toLowerCase()) } : {}),
      ...(r.destinations ? { destinations: r.destinations.map((a) => a.toLowerCase()) } : {}),
    }))
    const members = Object.fromEntries(Object.entries(groups).map(([name, list]) => [name, list.map((a) => a.toLowerCase())]))
    const named = names ? Object.fromEntries(Object.entries(names).map(([a, n]) => [a.toLowerCase(), n.trim()])) : null
    await this.appendAdmin((s) => policyEntry(s, stored, members, named ?? s.policy?.names ?? {}))
  }
}

/**
 * Would every desk accept this change on the state verified now? Its id is its change digest, it is
 * signed as a change, it builds on the current roster and policy (else TeamChangeStale), and it applies.
 */
function checkChange(c: PendingChange, state: TeamState, roster: Roster): void {
  if ((c.kind !== 'roster' && c.kind !== 'policy' && c.kind !== 'custody') || !signsAsChange(c) || changeDigest(roster.teamId, c) !== c.id)
    throw new DeskError(TeamErrors.refused, `the stored change ${c.id.slice(0, 10)}… does not match its id (edited in the database)`)
  let payload: unknown
  try {
    payload = JSON.parse(c.payload)
  } catch {
    throw new DeskError(TeamErrors.refused, `the stored change ${c.id.slice(0, 10)}… is not JSON`)
  }
  if ((payload as { basis?: unknown }).basis !== state.governance)
    throw new DeskError(
      'TeamChangeStale',
      `the roster or policy changed since this ${c.kind} change was made (${c.id.slice(0, 10)}…): make it again`,
      { changeId: c.id },
    )
  try {
    if (c.kind === 'roster') applyRosterChanges(roster, payload as never)
    else if (c.kind === 'custody' && isResplit(payload as never)) resplitFromPayload(payload as never, roster, state.custody, c.id)
    else if (c.kind === 'custody') custodyFromPayload(payload as never, roster, state.custody)
    else policyFromPayload(payload as never, state.policy?.version ?? 0)
  } catch (e) {
    throw new DeskError(TeamErrors.refused, e instanceof Error ? e.message : String(e))
  }
}

/** The stored signatures that are an admin's (of the roster now) over this change, one per admin. */
async function validSignatures(c: PendingChange, list: readonly EntrySignature[], roster: Roster): Promise<EntrySignature[]> {
  const admins = adminsOf(roster)
  const td = changeTypedData(roster.teamId, c)
  const out: EntrySignature[] = []
  for (const s of list) {
    if (!admins.has(s.signer) || out.some((o) => o.signer === s.signer)) continue
    const ok = await verifyTypedData({ ...(td as Parameters<typeof verifyTypedData>[0]), address: s.signer, signature: s.signature }).catch(
      () => false,
    )
    if (ok) out.push(s)
  }
  return out
}

/** What a pending change does, in words an admin signs. */
function changeSummary(c: PendingChange, roster: Roster): string[] {
  let p: { changes?: unknown; version?: unknown; rules?: unknown; groups?: unknown }
  try {
    p = JSON.parse(c.payload) as typeof p
  } catch {
    return ['(unreadable change)']
  }
  const who = (a: unknown) => `${roster.members.get(String(a))?.name ?? ''} ${String(a)}`.trim()
  if (c.kind === 'custody' && (p as { resplit?: unknown }).resplit) {
    const q = p as {
      custodyOf?: unknown
      resplit: { version?: unknown; threshold?: unknown; holders?: unknown[]; recovery?: unknown; sealer?: unknown }
    }
    const holders = Array.isArray(q.resplit.holders) ? q.resplit.holders.map(who) : []
    return [
      `re-split ${String(q.custodyOf)} to version ${String(q.resplit.version)}: ${String(q.resplit.threshold)} of ` +
        `${holders.length + (q.resplit.recovery ? 1 : 0)} shares sign`,
      `new holders ${holders.join(', ')}${q.resplit.recovery ? ', and a new offline recovery share' : ''}; sealed by ${who(q.resplit.sealer)}; the ` +
        `current shares retire`,
    ]
  }
  if (c.kind === 'custody') {
    const r = p as { custodyOf?: unknown; version?: unknown; threshold?: unknown; holders?: { address?: unknown }[]; recovery?: unknown }
    const holders = Array.isArray(r.holders) ? r.holders.map((h) => who(h.address)) : []
    return [
      `custody of ${String(r.custodyOf)} (split version ${String(r.version)}): ${String(r.threshold)} of ${holders.length + (r.recovery ? 1 : 0)} shares sign`,
      `shares held by ${holders.join(', ')}${r.recovery ? ', and one offline recovery share' : ''}`,
    ]
  }
  if (c.kind === 'policy') {
    const rules = Array.isArray(p.rules) ? (p.rules as { id?: unknown }[]) : []
    const groups = p.groups && typeof p.groups === 'object' ? Object.entries(p.groups as Record<string, unknown>) : []
    return [
      `policy version ${String(p.version)}: ${rules.length} rule(s), in order: ${rules.map((r) => String(r.id)).join(', ')}`,
      ...groups.map(([name, members]) => `group ${name}: ${Array.isArray(members) ? members.map(String).join(', ') : '?'}`),
    ]
  }
  const changes = Array.isArray(p.changes) ? (p.changes as Record<string, unknown>[]) : []
  return changes.map((x) => {
    const roles = Array.isArray(x.roles) ? (x.roles as unknown[]).join(', ') : ''
    switch (x.op) {
      case 'add':
        return `add ${String(x.name)} ${String(x.address)} as ${roles}`
      case 'remove':
        return `remove ${who(x.address)}`
      case 'roles':
        return `set the roles of ${who(x.address)} to ${roles}`
      case 'quorum':
        return `set the admin quorum to ${String(x.adminQuorum)}`
      default:
        return `unknown change ${String(x.op)}`
    }
  })
}
