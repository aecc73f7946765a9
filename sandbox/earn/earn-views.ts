/** The pool's records as the earn API shows them (spec §4): decimal-string atoms, snake_case keys. */
import type { DepositEntry, EarnPage, WithdrawalRecord, YieldEntry } from '../../main/core/wire/earn'
import type { DepositState, PageQuery, WithdrawalState, YieldState } from './earn-records'

export function withdrawalRecord(w: WithdrawalState): WithdrawalRecord {
  const r: WithdrawalRecord = {
    id: w.id,
    operation_id: w.operationId,
    user_address: w.user,
    user_nonce: w.userNonce,
    withdraw_type: w.type,
    asset_id: w.assetId,
    gross_amount: w.gross.toString(),
    user_amount: (w.gross - w.fee).toString(),
    fee_amount: w.fee.toString(),
    fee_bps_snapshot: w.feeBps,
    request_deadline_unix_ms: w.deadline,
    claimable_at_unix_ms: w.claimableAt,
    status: w.status,
    created_at_unix_ms: w.createdAt,
    claimed_at_unix_ms: w.claimedAt,
    cancelled_at_unix_ms: w.cancelledAt,
    completed_at_unix_ms: w.completedAt,
  }
  if (w.coreTxHash) r.core_tx_hash = w.coreTxHash
  if (w.feeCoreTxHash) r.fee_core_tx_hash = w.feeCoreTxHash
  if (w.failureCode) {
    r.failure_code = w.failureCode
    r.failure_message = w.failureMessage ?? ''
  }
  return r
}

export function depositEntry(d: DepositState): DepositEntry {
  const e: DepositEntry = {
    id: d.id,
    operation_id: d.operationId,
    deposit_type: d.type,
    asset_id: d.assetId,
    amount: d.amount.toString(),
    status: d.status,
    core_height: d.coreHeight,
    core_event_timestamp_ms: d.timestampMs,
  }
  if (d.type === 'bridge_deposit') {
    e.src_chain_id = d.srcChainId ?? 1
    if (d.srcTxHash) e.src_tx_hash = d.srcTxHash
    if (d.coreTxHash) e.core_tx_hash = d.coreTxHash
  }
  return e
}

export function yieldEntry(y: YieldState): YieldEntry {
  return {
    id: y.id,
    distribution_id: y.distributionId,
    asset_id: y.assetId,
    snapshot_balance: y.snapshotBalance.toString(),
    yield_amount: y.amount.toString(),
    applied_at_unix_ms: y.appliedAt,
  }
}

/** Newest first; `next_before_id` set whenever the page is exactly `limit` long (spec §4). */
export function page<S extends { id: number }, T>(rows: S[], q: PageQuery, map: (s: S) => T): EarnPage<T> {
  const out: S[] = []
  for (let i = rows.length - 1; i >= 0 && out.length < q.limit; i--) {
    const r = rows[i]!
    if (q.beforeId !== undefined && r.id >= q.beforeId) continue
    out.push(r)
  }
  const last = out[out.length - 1]
  return { items: out.map(map), next_before_id: out.length === q.limit && last ? last.id : null }
}
