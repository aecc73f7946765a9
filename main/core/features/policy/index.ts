export { haltAll, type HaltDeps } from './halt'
export { policyHandlers, type PolicyChannels, type PolicyDeps } from './handlers'
