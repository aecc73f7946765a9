/**
 * A write side (the session's signing, journaling and sending half) on its own seeded sandbox,
 * with the dev owners 0..5 and their agents in a DevVault: the harness of the features'
 * direct-write integration tests (settle-repay, orders, transfers, agents, earn), one per file.
 */
import type { Address } from 'viem'
import { startSandbox, type SandboxHandle } from '../../sandbox/index'
import { devAgent, devOwner } from '../../sandbox/scenario/dev-keys'
import { sandboxNetwork, type ResolvedNetwork } from '../core/config/networks'
import { InfoClient } from '../core/exchange/info/client'
import { RateScheduler } from '../core/exchange/scheduler'
import type { Journal } from '../core/journal'
import { openTempJournal } from '../core/journal/testing/temp-journal'
import { WriteSide } from '../core/session/write-side'
import { DevVault } from './dev-vault'

/** The seeded accounts the tests use. */
export const O0 = devOwner(0).address as Address // balance-mode, agents in slots 0 and 2
export const O1 = devOwner(1).address as Address // balance-mode, agent in slot 1, claimable earn withdrawal
export const O3 = devOwner(3).address as Address // credit: long 0.3 BTC (asset 3), short 12000 USDC (asset 1)
export const O5 = devOwner(5).address as Address // unfunded

export interface WriteSideOnSandbox {
  sb: SandboxHandle
  journal: Journal
  session: WriteSide
  vault: DevVault
  /** The exchange's executed actions with this cloid (ground truth, not the desk's view). */
  executedByCloid(cloid: string): ReturnType<SandboxHandle['trading']['groundTruth']>
  stop(): Promise<void>
}

export async function startWriteSideOnSandbox(): Promise<WriteSideOnSandbox> {
  // O0's seeded earn withdrawal stays queued (cancelable) for the whole file; O1's is seeded claimable.
  const sb = await startSandbox({ seed: true, blockMs: 20, botIntervalMs: 0, rateLimits: false, earnPendingSeconds: 600 })
  const vault = new DevVault()
  for (let i = 0; i <= 5; i++) vault.addOwner(devOwner(i).privateKey)
  vault.addAgent(O0, 0, devAgent(0).privateKey)
  vault.addAgent(O0, 2, devAgent(1).privateKey)
  vault.addAgent(O1, 1, devAgent(2).privateKey)
  const journal = openTempJournal()
  const network: ResolvedNetwork = {
    ...sandboxNetwork(),
    tradingUrl: sb.tradingUrl,
    wsUrl: sb.wsUrl,
    earnUrl: sb.earnUrl,
  } as ResolvedNetwork
  const info = new InfoClient({ baseUrl: sb.tradingUrl, scheduler: new RateScheduler({ ratePerSec: 1000 }) })
  const session = new WriteSide({ network, journal, vault, info, tradeScheduler: new RateScheduler({ ratePerSec: 1000 }) })
  return {
    sb,
    journal,
    session,
    vault,
    executedByCloid: (cloid) => sb.trading.groundTruth().filter((t) => t.cloid === cloid),
    async stop() {
      try {
        await session.stop()
      } finally {
        try {
          await journal.close()
        } finally {
          await sb.stop()
        }
      }
    },
  }
}
