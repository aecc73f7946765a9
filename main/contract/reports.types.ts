/** Reports (exports, realised PnL) and alerts: issue 14. */

import type { Address, Decimal } from './common.types'
import type { NotificationEvent } from './app.types'

/** A file produced in main for the operator to save (CSV text; amounts are exact decimal strings). */
export interface ExportFile {
  filename: string
  mime: string
  content: string
}

/** Realised PnL of one account in one market (FIFO lots, exact decimals in the market's quote asset). */
export interface PnlRow {
  account: Address
  label: string
  marketId: string
  market: string
  baseSymbol: string
  quoteSymbol: string
  /** fills of this account in this market read from the service (all history it returned, for the lots) */
  fills: number
  /** fills inside [fromMs, toMs) whose closings count here */
  fillsInRange: number
  /** base quantity closed against earlier lots inside the range */
  closedQty: Decimal
  /** proceeds minus FIFO cost of the closed quantity, before fees, in the quote asset */
  realisedGross: Decimal
  /** fees charged in the quote asset on fills inside the range (subtracted in realisedNet) */
  quoteFees: Decimal
  realisedNet: Decimal
  /** fees charged in another asset (the base asset on a buy): reported, never converted */
  otherFees: { assetId: number; symbol: string; amount: Decimal }[]
  /** net base position built from the fills read (negative: sold more than bought in those fills) */
  openQty: Decimal
  /** FIFO cost of the open position, in the quote asset */
  openCost: Decimal
  /** fills the service returned without the account's side (aged out): left out of the lots */
  unknownSideFills: number
  /** time of the oldest fill the service returned: holdings acquired before it (or by deposit) have no cost basis here */
  historyFromMs: number | null
  notes: string[]
}

export interface PnlReport {
  method: 'FIFO'
  methodNote: string
  fromMs: number | null
  toMs: number | null
  rows: PnlRow[]
  /** fills paging could not read (the service keeps the 10000 most recent fills) */
  gaps: string[]
}

export type AlertKind =
  | 'funds-received'
  | 'ltv'
  | 'order-filled'
  | 'earn-claimable'
  | 'agent-slot-empty'
  | 'write-unresolved'
  /** team mode: a proposal waits for my approval */
  | 'team-approval'
  /** team mode: my proposal was approved, rejected or executed */
  | 'team-proposal'

export interface AlertView {
  id: string
  kind: AlertKind
  level: 'info' | 'success' | 'warning' | 'error'
  title: string
  message: string
  account: Address | null
  network: string
  atMs: number
  /** raised inside quiet hours: recorded and shown in the panel, no desktop notification */
  desktopSuppressed: boolean
  acknowledgedAt: number | null
}

export interface AlertSettingsView {
  /** which alert kinds are evaluated */
  rules: Record<AlertKind, boolean>
  /** credit line in use (percent) past which an `ltv` alert is raised, once per crossing */
  ltvThresholdsPct: number[]
  /** local times "HH:MM" (the main process's zone): no desktop notifications from start until end; null = none */
  quietHours: { start: string; end: string } | null
  /** how often the rules are evaluated on live data */
  checkIntervalSec: number
  /** show alerts as desktop notifications (outside quiet hours); off: recorded and shown in the panel only */
  desktopNotifications: boolean
}

/** The `notify` payload of an alert: a NotificationEvent plus the alert's id and whether a desktop notification may be shown. */
export interface AlertNotificationEvent extends NotificationEvent {
  alertId: string
  alertKind: AlertKind
  desktop: boolean
}

/** A currency an export's value column may use now: USD, or an asset at its live mark. */
export interface ReportCurrencyView {
  code: string
  /** USD per unit at the current mark (exact decimal); null for USD */
  markUsd: Decimal | null
  markTimeMs: number | null
}
