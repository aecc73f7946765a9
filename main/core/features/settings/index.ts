export { settingsHandlers, type SettingsChannels, type SettingsDeps } from './handlers'
