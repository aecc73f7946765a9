/** What every part of the trading service shares: the chain state, the clock and the injected faults. */
import type { Address } from 'viem'
import type { ChainState } from './state'
import type { FaultRule, TradingFaults } from './types'

export interface ServiceCore {
  readonly chainId: number
  readonly now: () => number
  readonly state: ChainState
  /** The admin's fault switches; the same object the service exposes, mutated as faults are used up. */
  readonly faults: TradingFaults
  /** Address credited with activation fees. */
  readonly feeAccount: Address
  /** Whether a fault rule fires now (its remaining count first, else its probability). */
  fires(rule: FaultRule | null): boolean
}
