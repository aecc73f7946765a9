/** Reports and alerts (issue 14): computed in main from the exchange's data. */

import * as v from 'valibot'
import type { AlertSettingsView, AlertView, ExportFile, PnlReport, ReportCurrencyView } from './reports.types'
import { intent, query } from './common.channel'
import { address, none, timeMs } from './common.schemas'

/** A credit-line threshold in percent: 0 to 100, at most 2 decimals (75.25). */
const ltvPct = v.pipe(
  v.number(),
  v.minValue(0),
  v.maxValue(100),
  v.check((x) => /^[0-9]{1,3}(\.[0-9]{1,2})?$/.test(String(x)), 'a percent from 0 to 100 with at most 2 decimals'),
)
/** An export's value currency: 'USD' or an asset symbol; main checks it is listed and has a live mark. */
const reportCurrency = v.pipe(
  v.string(),
  v.minLength(1),
  v.maxLength(16),
  v.regex(/^[A-Za-z0-9][A-Za-z0-9._-]*$/, 'USD or an asset symbol'),
)

export const reportsChannels = {
  /** CSV of fills in [fromMs, toMs) for one account or all of the operator's accounts, with fees and a USD value column. */
  'reports.fillsCsv': query<ExportFile>()(
    v.object({ account: v.optional(address), fromMs: timeMs, toMs: timeMs, currency: v.optional(reportCurrency) }),
  ),
  /** CSV of deposits, withdrawals and journaled transfers / settles / repays in [fromMs, toMs). */
  'reports.transfersCsv': query<ExportFile>()(
    v.object({ account: v.optional(address), fromMs: timeMs, toMs: timeMs, currency: v.optional(reportCurrency) }),
  ),
  /** Realised PnL per (account, market) from fills, FIFO, exact decimals. */
  'reports.pnl': query<PnlReport>()(
    v.optional(v.object({ account: v.optional(address), fromMs: v.optional(timeMs), toMs: v.optional(timeMs) }), {}),
  ),
  'alerts.list': query<AlertView[]>()(
    v.optional(
      v.object({ sinceMs: v.optional(timeMs), limit: v.optional(v.pipe(v.number(), v.integer(), v.minValue(1), v.maxValue(500))) }),
      {},
    ),
  ),
  'alerts.settings.get': query<AlertSettingsView>()(none),
  'alerts.settings.update': intent<AlertSettingsView>()(
    v.object({
      rules: v.optional(
        v.partial(
          v.object({
            'funds-received': v.boolean(),
            ltv: v.boolean(),
            'order-filled': v.boolean(),
            'earn-claimable': v.boolean(),
            'agent-slot-empty': v.boolean(),
            'write-unresolved': v.boolean(),
            'team-approval': v.boolean(),
            'team-proposal': v.boolean(),
          }),
        ),
      ),
      ltvThresholdsPct: v.optional(v.pipe(v.array(ltvPct), v.maxLength(5))),
      quietHours: v.optional(
        v.nullable(
          v.object({
            start: v.pipe(v.string(), v.regex(/^([01][0-9]|2[0-3]):[0-5][0-9]$/, 'HH:MM')),
            end: v.pipe(v.string(), v.regex(/^([01][0-9]|2[0-3]):[0-5][0-9]$/, 'HH:MM')),
          }),
        ),
      ),
      checkIntervalSec: v.optional(v.pipe(v.number(), v.integer(), v.minValue(1), v.maxValue(3600))),
      desktopNotifications: v.optional(v.boolean()),
    }),
  ),
  'alerts.acknowledge': intent<AlertView>()(v.object({ id: v.pipe(v.string(), v.regex(/^[1-9][0-9]{0,15}$/, 'an alert id')) })),
  /** Acknowledges every alert not yet acknowledged (the newest 500 kept); returns how many. */
  'alerts.acknowledgeAll': intent<{ acknowledged: number }>()(none),
  /** The currencies an export may use now: USD, and every listed asset whose mark is live (with that mark and its time). */
  'reports.currencies': query<ReportCurrencyView[]>()(none),
} as const
