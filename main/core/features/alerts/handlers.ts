import type { HandlerTable } from '../../ipc/dispatch'
import type { AlertService } from './alerts.service'

export type AlertsChannels =
  'alerts.list' | 'alerts.settings.get' | 'alerts.settings.update' | 'alerts.acknowledge' | 'alerts.acknowledgeAll'

export function alertsHandlers(d: { alerts: AlertService }): Pick<HandlerTable, AlertsChannels> {
  return {
    'alerts.list': (a) => d.alerts.list(a ?? {}),
    'alerts.settings.get': () => d.alerts.settings(),
    'alerts.settings.update': (patch) => d.alerts.updateSettings(patch),
    'alerts.acknowledge': ({ id }) => d.alerts.acknowledge(id),
    'alerts.acknowledgeAll': () => d.alerts.acknowledgeAll(),
  }
}
