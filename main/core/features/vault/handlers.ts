import { DeskError } from '../../errors/desk-error'
import type { HandlerTable } from '../../ipc/dispatch'
import type { SessionSource } from '../../session'
import type { VaultHolder } from './vault-holder'

export type VaultChannels = 'vault.create' | 'vault.unlock' | 'vault.lock' | 'vault.changePassphrase'

export function vaultHandlers(d: { vault: VaultHolder; sessions: SessionSource }): Pick<HandlerTable, VaultChannels> {
  return {
    'vault.create': ({ passphrase }) => d.vault.create(passphrase),
    'vault.unlock': async ({ passphrase }) => {
      const status = await d.vault.unlock(passphrase)
      // Unresolved writes are reconciled as soon as keys are available.
      void d.sessions
        .current()
        .then((s) => s.reconcileSoon())
        .catch(() => {})
      return status
    },
    'vault.lock': () => {
      d.vault.lock('operator')
      return d.vault.status()
    },
    'vault.changePassphrase': async ({ current, next }) => {
      const vault = d.vault.requireUnlocked()
      // Checked first: a wrong passphrase is refused before anything is recorded for the team.
      if (!(await vault.verifyPassphrase(current))) throw new DeskError('PassphraseIncorrect', 'wrong vault passphrase; nothing changed')
      await d.vault.custody.run({ kind: 'vault_passphrase', account: null, title: 'Change the vault passphrase' }, () =>
        vault.changePassphrase(current, next),
      )
      return d.vault.status()
    },
  }
}
