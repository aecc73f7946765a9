export { VaultHolder, type VaultHolderDeps } from './vault-holder'
export { vaultHandlers, type VaultChannels } from './handlers'
