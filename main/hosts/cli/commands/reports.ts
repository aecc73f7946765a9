/**
 * `desk export …`, `desk pnl`, `desk alerts …`: the operator's records from main — CSV of fills,
 * transfers and withdrawals, and the journal for a date range; realised PnL (FIFO) per account and
 * market; the local alerts.
 */
import { writeFileSync } from 'node:fs'
import type { AlertView, ExportFile, PnlReport } from '../../../contract/types'
import { DeskError } from '../../../contract/errors'
import { formatAccount, formatAge, formatPercent } from '../../../contract/format'
import type { CliContext } from '../context'
import { amount, when } from '../support/display'
import type { Command, CommandGroup, OptionSpec } from '../router'

const s = (valueName: string, description: string): OptionSpec => ({ type: 'string', valueName, description })
const RANGE: Record<string, OptionSpec> = {
  account: s('ACCOUNT', 'one account (label or address); default every account'),
  from: s('DATE', 'start, inclusive (ISO date or time, e.g. 2026-11-01); default 30 days ago'),
  to: s('DATE', 'end, exclusive; default now'),
  out: s('FILE', 'write the CSV to FILE instead of standard output'),
}

function time(raw: string | undefined, name: string, fallback: number): number {
  if (raw === undefined) return fallback
  const t = Date.parse(raw)
  if (!Number.isFinite(t))
    throw new DeskError('Usage', `--${name} must be a date or time (e.g. 2026-11-01 or 2026-11-01T12:00:00Z), not "${raw}"`)
  return t
}

function range(ctx: CliContext): { account?: string; fromMs: number; toMs: number } {
  const toMs = time(ctx.string('to'), 'to', Date.now())
  const fromMs = time(ctx.string('from'), 'from', toMs - 30 * 86_400_000)
  if (fromMs >= toMs) throw new DeskError('Usage', '--from must be before --to')
  const account = ctx.string('account')
  return { ...(account ? { account } : {}), fromMs, toMs }
}

function emit(ctx: CliContext, file: ExportFile): void {
  const out = ctx.string('out')
  if (out) {
    writeFileSync(out, file.content, { mode: 0o600 })
    ctx.print(`wrote ${file.filename} to ${out}`, { file: out, filename: file.filename })
  } else ctx.io.stdout(file.content)
}

const exportCmd = (name: string, summary: string, channel: 'reports.fillsCsv' | 'reports.transfersCsv'): Command => ({
  name,
  summary,
  options: { ...RANGE, currency: s('CODE', 'value column in USD (default) or an asset with a live mark, e.g. BTC (main refuses others)') },
  async run(ctx) {
    // Main resolves and validates the currency (InvalidCurrency, CurrencyUnavailable).
    emit(ctx, await ctx.call(channel, { ...range(ctx), currency: ctx.string('currency') ?? 'USD' }))
  },
})

const journalExport: Command = {
  name: 'journal',
  summary: 'CSV of the journal (every write and its outcome) for the date range',
  options: RANGE,
  async run(ctx) {
    const r = range(ctx)
    emit(
      ctx,
      await ctx.call('journal.export', {
        format: 'csv',
        filter: { sinceMs: r.fromMs, untilMs: r.toMs, ...(r.account ? { account: r.account } : {}) },
      }),
    )
  },
}

export const exports: CommandGroup = {
  name: 'export',
  summary: 'CSV exports: fills (with fees), transfers and withdrawals, the journal; values in USD or --currency',
  commands: [
    exportCmd('fills', 'CSV of fills with fees, per account or all, for the date range', 'reports.fillsCsv'),
    exportCmd('transfers', 'CSV of deposits, withdrawals, transfers, settles and repays for the date range', 'reports.transfersCsv'),
    journalExport,
  ],
}

/** The PnL report: its range in the operator's zone, then per account (label and short address) and market, amounts in their assets. */
export function pnlLines(r: PnlReport, now = Date.now()): string[] {
  const range = `${r.fromMs === null ? 'from the first fill' : `from ${when(r.fromMs, now)}`} ${r.toMs === null ? 'to now' : `to ${when(r.toMs, now)}`}`
  return [
    `method ${r.method}: ${r.methodNote}`,
    range,
    ...(r.rows.length === 0 ? ['(no fills in the range)'] : []),
    ...r.rows.map(
      (x) =>
        `${formatAccount({ address: x.account, label: x.label }).text.padEnd(30)} ` +
        `${x.market.padEnd(12)} realised ${amount(x.realisedNet, x.quoteSymbol)} (gross ` +
        `${amount(x.realisedGross, x.quoteSymbol)}, fees ` +
        `${amount(x.quoteFees, x.quoteSymbol)})  open ${amount(x.openQty, x.baseSymbol)}`,
    ),
    ...r.gaps.map((g) => `note: ${g}`),
  ]
}

const pnlShow: Command = {
  name: 'show',
  summary: 'realised PnL per account and market from fills (FIFO), fees in the quote asset subtracted',
  options: { account: RANGE.account!, from: RANGE.from!, to: RANGE.to! },
  async run(ctx) {
    const account = ctx.string('account')
    const args = {
      ...(account ? { account } : {}),
      ...(ctx.string('from') ? { fromMs: time(ctx.string('from'), 'from', 0) } : {}),
      ...(ctx.string('to') ? { toMs: time(ctx.string('to'), 'to', 0) } : {}),
    }
    const r = await ctx.call('reports.pnl', args)
    ctx.print(pnlLines(r), r)
  },
}

export const pnl: CommandGroup = {
  name: 'pnl',
  summary: 'realised profit and loss from fills',
  commands: [pnlShow],
  defaultCommand: 'show',
}

/** One line per alert: its time in the operator's zone with its age. */
export function alertLines(r: readonly AlertView[], now = Date.now()): string[] {
  return r.length === 0
    ? ['no alerts']
    : r.map(
        (a) =>
          `#${a.id} ${when(a.atMs, now)} ${a.level.padEnd(7)} ${a.title}: ${a.message}` +
          `${a.acknowledgedAt ? ` (acknowledged ${formatAge(a.acknowledgedAt, now)})` : ''}`,
      )
}

const alertList: Command = {
  name: 'list',
  summary: 'recent alerts (funds received, credit LTV, fills, earn claimable, empty agent slot, unresolved write)',
  options: { since: s('DATE', 'only alerts from DATE on'), limit: s('N', 'at most N (default 50, max 500)') },
  async run(ctx) {
    const limit = Number(ctx.string('limit') ?? '50')
    if (!Number.isInteger(limit) || limit < 1 || limit > 500) throw new DeskError('Usage', '--limit must be 1..500')
    const since = ctx.string('since')
    const r = await ctx.call('alerts.list', { limit, ...(since ? { sinceMs: time(since, 'since', 0) } : {}) })
    ctx.print(alertLines(r), r)
  },
}

const alertAck: Command = {
  name: 'ack',
  summary: 'acknowledge alert ID',
  positionals: ['ID'],
  async run(ctx) {
    const a = await ctx.call('alerts.acknowledge', { id: ctx.positionals[0]! })
    ctx.print(`#${a.id} acknowledged`, a)
  },
}

const alertSettings: Command = {
  name: 'settings',
  summary: 'the alert rules, LTV thresholds and quiet hours',
  async run(ctx) {
    const r = await ctx.call('alerts.settings.get', undefined)
    ctx.print(
      [
        ...Object.entries(r.rules).map(([k, on]) => `${k.padEnd(20)} ${on ? 'on' : 'off'}`),
        `ltv thresholds ${r.ltvThresholdsPct.map((x) => formatPercent(String(x))).join(', ')}`,
        `quiet hours ${r.quietHours ? `${r.quietHours.start}-${r.quietHours.end}` : 'none'}`,
      ],
      r,
    )
  },
}

export const alerts: CommandGroup = {
  name: 'alerts',
  summary: 'local alerts: list, acknowledge, settings',
  commands: [alertList, alertAck, alertSettings],
  defaultCommand: 'list',
}
