import type { HandlerTable } from '../../ipc/dispatch'
import type { SessionSource } from '../../session'
import { ReportsService, type ReportAccount } from './reports.service'

export type ReportsChannels = 'reports.fillsCsv' | 'reports.transfersCsv' | 'reports.pnl' | 'reports.currencies'

export interface ReportsDeps {
  sessions: SessionSource
  /** The operator's accounts (address and label), for "all accounts" and the label column. */
  accounts: () => readonly ReportAccount[]
}

export function reportsHandlers(d: ReportsDeps): Pick<HandlerTable, ReportsChannels> {
  const svc = async () => new ReportsService(await d.sessions.current(), d.accounts)
  return {
    'reports.fillsCsv': async (a) => (await svc()).fillsCsv(a),
    'reports.transfersCsv': async (a) => (await svc()).transfersCsv(a),
    'reports.pnl': async (a) => (await svc()).pnl(a ?? {}),
    'reports.currencies': async () => (await svc()).currencies(),
  }
}
