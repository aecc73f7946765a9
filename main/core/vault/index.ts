/** Key custody: the public surface of the vault for services and hosts. */
export {
  Vault,
  vaultPath,
  DEFAULT_AUTO_LOCK_MS,
  type VaultOptions,
  type CreateVaultOptions,
  type ExportKeystoreOptions,
  type BackupState,
  type VaultCustody,
} from './vault'
export { VaultError, type VaultErrorCode } from './errors'
export type { AgentSlot, SignerRef, OwnerAccountInfo, AgentKeyInfo, RetiredAgentInfo, VaultEvent, LockReason } from './types'
export { AGENT_SLOTS, isAgentSlot } from './types'
export {
  SigningPolicy,
  DEFAULT_REENTRY_WINDOW_MS,
  type Confirmer,
  type ConfirmationRequest,
  type ConfirmationResponse,
  type SigningIntent,
  type GatedAction,
} from './signing-policy'
export { DEFAULT_SCRYPT, type ScryptParams } from './kdf'
export { decryptKeystore, encryptKeystore, type KeystoreV3, type KeystoreExportKdf } from './keystore-v3'
export { checkPassphrase, assertPassphraseStrong, DEFAULT_PASSPHRASE_POLICY, type PassphrasePolicy } from './passphrase-policy'
export { parseAddress } from './private-key'
export { openShare, parseEnvelope, sealShare, shareAad, type ShareEnvelope } from './share-envelope'
export { VAULT_FILE_NAME, type VaultDamage } from './vault-file'
export { TEAM_SECRETS, type TeamSecretName } from './identity-key'
