export { AlertService, alertView, type AlertAccount, type AlertsDeps } from './alerts.service'
export { alertsHandlers, type AlertsChannels } from './handlers'
export { inQuietHours } from './quiet-hours'
export { ALERT_KINDS, DEFAULT_ALERT_SETTINGS, validatePatch as validateAlertSettings } from './alert-settings'
