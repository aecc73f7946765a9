export { VaultHolder, type VaultHolderDeps } from './vault-holder'
export { vaultHandlers, type VaultChannels } from './handlers'
export { vaultKeysHandlers, type VaultKeysChannels } from './keys.handlers'
export { readSecret } from './secret-ref'
