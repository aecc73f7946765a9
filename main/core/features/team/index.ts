/** Team mode in the write pipeline: the decision step (TeamGate) on the verified team chain. */
export { TeamGate, type ProposalOutcome, type StoredSignature, type TeamGateOptions } from './team-gate'
export { vaultTeamSigner } from './vault-signer'
export { teamHandlers, type TeamChannels } from './handlers'
export { TeamService, type SettingsApplier, type SettingsVerdict, type SettingsWhere } from './service'
export { sessionTakeoverSender, type TakeoverSender } from './takeover'
