/**
 * The guard a team desk installs on its vault: a custody change of a vault bound to a team
 * (vault-changes.ts) goes through the team gate; a vault never joined to a team changes alone.
 */
import { DeskError } from '../../errors/desk-error'
import { TeamErrors } from '../../team'
import type { CustodyGuard, VaultHolder } from '../vault'
import { boundElsewhere, readBinding } from './binding'
import type { TeamLink } from './team-link'

/** The guard (features/vault/custody-guard.ts). */
export function teamCustodyGuard(d: { link: TeamLink; vault: VaultHolder }): CustodyGuard {
  return {
    async run(change, apply) {
      const vault = d.vault.requireUnlocked()
      const bound = readBinding(vault)
      if (!bound) return apply() // never joined a team: the desk's own change
      if (!d.link.config) throw boundElsewhere(bound, undefined)
      const { gate, roster } = await d.link.roster()
      const me = vault.identityAddress()?.toLowerCase()
      if (!me || !roster.members.has(me))
        throw new DeskError(
          TeamErrors.refused,
          'this operator is no longer a member of the team this vault is bound to: the vault changes nothing until it leaves the team (desk team leave)',
        )
      return gate.vaultChange(change, apply)
    },
  }
}
