/**
 * Joining and running a team: the store's connection (password kept in the vault), the operator's
 * identity key, the genesis, and the admin-signed roster and policy entries.
 */
import type { Address, TeamRuleView } from '../../../contract/types'
import { DeskError } from '../../errors/desk-error'
import {
  TeamErrors,
  TeamStore,
  genesisEntry,
  policyEntry,
  rosterEntry,
  signedEntry,
  type RosterChange,
  type TeamState,
  type UnsignedEntry,
} from '../../team'
import type { VaultHolder } from '../vault'
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
    await this.d.vault.requireUnlocked().setTeamSecret('teamStorePassword', password)
    const link = this.d.link
    await link.release('reconfigured')
    link.setConfig({ connectionString: cs, deskId: link.config?.deskId ?? newDeskId() })
    await link.open()
  }

  /** This operator's identity key (created in the vault on first use; never an account key). */
  async join(passphrase: string): Promise<{ address: Address }> {
    await this.checkPassphrase(passphrase)
    const vault = this.d.vault.requireUnlocked()
    const address = vault.identityAddress() ?? (await vault.createIdentityKey())
    return { address: address.toLowerCase() as Address }
  }

  /** The genesis: this operator as the first admin (and trader); the desk trusts this chain from now on. */
  async init(teamName: string, name: string, passphrase: string): Promise<void> {
    const { address } = await this.join(passphrase)
    const link = this.d.link
    const { state, store } = await link.live()
    if (state.roster || state.head)
      throw new DeskError(
        'TeamAlreadyInitialised',
        `the team store already holds a team (${state.roster?.teamName ?? 'unverified'}); join it instead`,
      )
    const { teamId, entry } = genesisEntry({ teamName, adminQuorum: 1, members: [{ address, name, roles: ['admin', 'trader'] }] })
    const signed = await signedEntry(teamId, entry, [link.operator()])
    await store.append(signed)
    link.setConfig({ ...link.config!, genesisDigest: signed.digest })
    await link.refresh()
  }

  /** Appends one admin-signed roster/policy entry on the freshest verified state (retried on a seq conflict). */
  private async appendAdmin(build: (state: TeamState) => UnsignedEntry): Promise<void> {
    const link = this.d.link
    for (let attempt = 0; ; attempt++) {
      const { gate, store, roster } = await link.roster()
      const state = gate.report().state
      if (roster.adminQuorum > 1)
        throw new DeskError(
          'TeamQuorumSigning',
          `roster and policy changes need ${roster.adminQuorum} admin signatures; collecting them across desks is not built yet`,
        )
      let entry
      try {
        entry = build(state)
      } catch (e) {
        if (e instanceof DeskError && e.code === TeamErrors.badInput) throw new DeskError(TeamErrors.refused, e.message)
        throw e
      }
      const signed = await signedEntry(roster.teamId, entry, [link.operator()])
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

  private async requireAdmin(): Promise<void> {
    const { roster } = await this.d.link.roster()
    const me = this.d.link.facts().me
    if (!me || !roster.members.get(me)?.roles.includes('admin'))
      throw new DeskError(TeamErrors.refused, 'only a team admin may change the roster or the policy')
  }

  async changeRoster(changes: RosterChange[]): Promise<void> {
    await this.requireAdmin()
    const lc = changes.map((c) => ('address' in c ? { ...c, address: c.address.toLowerCase() } : c))
    await this.appendAdmin((s) => rosterEntry(s, lc))
  }

  async setPolicy(rules: TeamRuleInput[]): Promise<void> {
    await this.requireAdmin()
    const stored = rules.map((r) => ({
      ...r,
      ...(r.accounts ? { accounts: r.accounts.map((a) => a.toLowerCase()) } : {}),
      ...(r.destinations ? { destinations: r.destinations.map((a) => a.toLowerCase()) } : {}),
    }))
    await this.appendAdmin((s) => policyEntry(s, stored))
  }
}
