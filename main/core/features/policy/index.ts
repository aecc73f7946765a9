export { haltAll, type HaltDeps } from './halt'
export { policyHandlers, type PolicyChannels, type PolicyDeps } from './handlers'
export { applyApprovedSettings, judgeSettings, settingsInEffect, type SettingsGate, type SettingsVerdict } from './team-settings'
