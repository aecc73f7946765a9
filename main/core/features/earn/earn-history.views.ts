/**
 * Earn history rows as contract views (deposits and yield pages). Amounts stay exact decimal
 * strings; the write-side views live in services/write-views.ts.
 */
import type { EarnDepositView, EarnYieldView } from '../../../contract/types'
import { formatAtoms } from '../../money/decimal'
import type { DepositEntry, YieldEntry } from '../../wire/earn'

export function depositView(d: DepositEntry, decimals: (assetId: number) => number): EarnDepositView {
  return {
    id: String(d.id),
    operationId: d.operation_id,
    type: d.deposit_type,
    assetId: d.asset_id,
    amount: formatAtoms(BigInt(d.amount), decimals(d.asset_id)),
    status: d.status,
    timeMs: d.core_event_timestamp_ms ?? null,
  }
}

export function yieldView(y: YieldEntry, decimals: (assetId: number) => number): EarnYieldView {
  return {
    id: String(y.id),
    assetId: y.asset_id,
    snapshotBalance: formatAtoms(BigInt(y.snapshot_balance), decimals(y.asset_id)),
    yieldAmount: formatAtoms(BigInt(y.yield_amount), decimals(y.asset_id)),
    appliedAt: y.applied_at_unix_ms,
  }
}
