/** The oracle as the service reports it: an admin override, else `StalePrice` when some mark is stale. */
import type { ServiceCore } from './service-core'
import type { OracleReasonCode } from './types'
import { isMarkFresh } from './valuation'

export type OracleStatus = { status: 'available' } | { status: 'unavailable'; reason_code: OracleReasonCode }

/** The oracle as the admin forced it (fault or `setOracle`), regardless of mark ages. */
export function forcedOracle(core: ServiceCore): OracleStatus {
  if (core.faults.oracleUnavailable) return { status: 'unavailable' as const, reason_code: core.faults.oracleUnavailable }
  return core.state.oracle
}

/** What `oracleStatus` reports: a forced state, else `StalePrice` exactly when some mark is stale. */
export function oracleStatus(core: ServiceCore): OracleStatus {
  const { state, faults } = core
  const forced = forcedOracle(core)
  if (forced.status !== 'available') return forced
  const at = state.timeMs || core.now()
  for (const id of state.marks.keys()) {
    if (!isMarkFresh(state, id, at, faults.staleMarks)) return { status: 'unavailable', reason_code: 'StalePrice' }
  }
  return forced
}
