export { AccountDirectory, type AccountRef } from './account-directory'
export { AccountMetaStore } from './account-meta'
export { accountsHandlers, type AccountsChannels, type AccountsDeps, type DemoAccount } from './handlers'
export { confirmationContext } from './confirmation-context'
