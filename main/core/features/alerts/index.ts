export { AlertService, alertView, type AlertAccount, type AlertsDeps } from './alerts.service'
export { alertsHandlers, type AlertsChannels } from './handlers'
export { inQuietHours } from './quiet-hours'
export { DEFAULT_ALERT_SETTINGS, validatePatch as validateAlertSettings } from './alert-settings'
