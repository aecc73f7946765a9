/** The admin's injected faults: their initial (all off) state, when a rule fires, and which writes fail at execution. */
import type { ParsedEnvelope } from './envelope'
import type { ServiceCore } from './service-core'
import { cloidsOf } from './tx-cloids'
import type { FaultRule, TradingFaults } from './types'

/** An injected execution failure decided when the write was admitted. */
export type ForcedFailure = { kind: 'failed' } | { kind: 'envelope'; code: string }

export function noFaults(): TradingFaults {
  return {
    tradeTimeout: null,
    unavailable503: null,
    nodeUnreachable504: null,
    rateLimited: null,
    placeOrderSuspended: false,
    staleMarks: false,
    oracleUnavailable: null,
    queryLagBackpressure: null,
    failTx: null,
    envelopeFailure: null,
    feesInactive: false,
    vaultPayoutsInactive: false,
  }
}

/** A fault fires on its remaining count first, else with its probability. */
export function faultFires(rule: FaultRule | null, random: () => number): boolean {
  if (!rule) return false
  if (rule.count !== undefined && rule.count > 0) {
    rule.count -= 1
    return true
  }
  return rule.probability !== undefined && rule.probability > 0 && random() < rule.probability
}

/** Decides, at admission, whether an injected execution failure hits this write. */
export function forcedFailureFor(core: ServiceCore, p: ParsedEnvelope): ForcedFailure | null {
  const faults = core.faults
  const env = faults.envelopeFailure
  if (env && (env.code !== 'InvalidBatchLength' || p.action.type === 'batch') && core.fires(env)) {
    if (env.probability === undefined && (env.count ?? 0) <= 0) faults.envelopeFailure = null
    return { kind: 'envelope', code: env.code }
  }
  const f = faults.failTx
  if (f) {
    if (f.cloid !== undefined) {
      if (!cloidsOf(p).includes(f.cloid.toLowerCase())) return null
      if (f.count !== undefined && f.count > 1) f.count -= 1
      else faults.failTx = null
      return { kind: 'failed' }
    }
    const left = (f.count ?? 1) - 1
    if (left <= 0) faults.failTx = null
    else f.count = left
    return { kind: 'failed' }
  }
  return null
}
