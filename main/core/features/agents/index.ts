export { AgentsReadService, type AgentKeyDirectory } from './agents-read.service'
export { agentsFor } from './agents-for-session'
export {
  approveAgent,
  revokeAgent,
  rotateAgent,
  type AgentsContext,
  type ApprovedAgent,
  type RotationResult,
  type RotationStep,
} from './agents-write.service'
export { agentsHandlers, type AgentsChannels, type AgentsDeps } from './handlers'
export { AgentsLive, type AgentsLiveDeps } from './agents-live'
