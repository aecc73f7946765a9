import type { SettingsStore } from '../../config/settings'
import type { NetworkSession } from '../../session'
import { creditFor } from '../credit'
import { PortfolioService } from './portfolio.service'

const services = new WeakMap<NetworkSession, PortfolioService>()

export interface PortfolioServiceDeps {
  settings: SettingsStore
  /** unresolved journal entries of an account on the session's network */
  pendingJournal: (network: string, address: string) => number
}

/** The portfolio service of a session (one per session, built on first use). */
export function portfolioFor(s: NetworkSession, d: PortfolioServiceDeps): PortfolioService {
  let svc = services.get(s)
  if (!svc) {
    svc = new PortfolioService({
      info: s.info,
      market: s.market,
      credit: creditFor(s, d.settings),
      ...(s.pool ? { pool: s.pool } : {}),
      lastKnown: s.lastKnown,
      now: s.now,
      pendingJournal: (a) => d.pendingJournal(s.name, a),
    })
    services.set(s, svc)
  }
  return svc
}
