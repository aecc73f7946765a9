export { settingsHandlers, type SettingsChannels, type SettingsDeps } from './handlers'
export { removeNetwork, recordSelect, saveNetwork, type NetworkChangeDeps } from './network-changes'
