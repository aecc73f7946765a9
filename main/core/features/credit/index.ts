export { CreditHealthService, type CreditHealthDeps } from './credit-health.service'
export { creditFor } from './credit-for-session'
export { creditHandlers, type CreditChannels } from './handlers'
export { CreditLive, type CreditLiveDeps } from './credit-live'
