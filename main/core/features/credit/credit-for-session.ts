import type { SettingsStore } from '../../config/settings'
import type { NetworkSession } from '../../session'
import { CreditHealthService } from './credit-health.service'

const services = new WeakMap<NetworkSession, CreditHealthService>()

/** The credit-health service of a session (one per session, built on first use). */
export function creditFor(s: NetworkSession, settings: SettingsStore): CreditHealthService {
  let svc = services.get(s)
  if (!svc) {
    svc = new CreditHealthService({
      info: s.info,
      market: s.market,
      network: s.name,
      history: s.journal,
      lastKnown: s.lastKnown,
      ...(s.pool ? { pool: s.pool } : {}),
      now: s.now,
      thresholds: () => settings.load().warningThresholds,
    })
    services.set(s, svc)
  }
  return svc
}
