import { defineStore } from 'pinia'
import { ref } from 'vue'
import type { Address, ExportFile, PnlReport, ReportCurrencyView } from '../../../../main/contract/types'
import { call } from '../../platform/bridge/desk'

export type ReportKind = 'journal' | 'fills' | 'transfers'

export interface ReportRequest {
  kind: ReportKind
  /** one account, or undefined for all of the operator's accounts */
  account?: Address | undefined
  fromMs: number
  toMs: number
  /** value column currency (fills and transfers); the journal has no value column */
  currency: string
}

/** Exports and realised PnL: everything is computed in main; this only asks and keeps the last answer. */
export const useReportsStore = defineStore('reports', () => {
  const currencies = ref<ReportCurrencyView[]>([{ code: 'USD', markUsd: null, markTimeMs: null }])
  const pnl = ref<PnlReport | null>(null)

  async function loadCurrencies(): Promise<void> {
    currencies.value = await call('reports.currencies')
  }

  function exportCsv(r: ReportRequest): Promise<ExportFile> {
    const account = r.account ? { account: r.account } : {}
    if (r.kind === 'journal')
      return call('journal.export', { format: 'csv', filter: { ...account, sinceMs: r.fromMs, untilMs: r.toMs, limit: 10_000 } })
    const args = { ...account, fromMs: r.fromMs, toMs: r.toMs, currency: r.currency }
    return r.kind === 'fills' ? call('reports.fillsCsv', args) : call('reports.transfersCsv', args)
  }

  async function loadPnl(q: { account?: Address | undefined; fromMs: number; toMs: number }): Promise<PnlReport> {
    pnl.value = await call('reports.pnl', { ...(q.account ? { account: q.account } : {}), fromMs: q.fromMs, toMs: q.toMs })
    return pnl.value
  }

  return { currencies, pnl, loadCurrencies, exportCsv, loadPnl }
})
