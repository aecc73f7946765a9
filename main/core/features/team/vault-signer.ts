/** The desk operator's identity key, held by the vault, as the TeamSigner the team chain needs (the key never leaves the vault). */
import { DeskError } from '../../errors/desk-error'
import type { TeamSigner } from '../../team'
import type { Vault } from '../../vault'

export function vaultTeamSigner(vault: Vault): TeamSigner {
  const address = vault.identityAddress()
  if (!address) throw new DeskError('IdentityKeyMissing', 'this vault has no operator identity key: create one before joining a team')
  return { address, signTypedData: (td) => vault.signAsIdentity(td) }
}
