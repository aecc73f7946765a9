/**
 * The sandbox trading service: one chain state behind POST /trade, POST /info, the WebSocket
 * snapshot queries and the admin surface. This file wires the parts; each lives in its own module
 * (admission and authority in tx-*, the mempool and block loop in block-producer, /trade in
 * trade-handler, faults in fault-injection, seeding and admin in service-admin).
 */
import type { Address } from 'viem'
import { SandboxError } from '../errors'
import { BlockProducer } from './block-producer'
import { DEFAULT_ASSETS, DEFAULT_MARKETS, DEFAULT_MARKS, FEE_ACCOUNT } from './defaults'
import { faultFires, noFaults } from './fault-injection'
import { dispatchInfo, infoError } from './info'
import { oracleStatus } from './oracle-status'
import { restoreState, snapshotState } from './persistence'
import { SlidingWindow, TokenBuckets } from './rate-limit'
import { addMarket, createAdminOps } from './service-admin'
import type { ServiceCore } from './service-core'
import { wsAllMids, wsBbo, wsL2Book, wsOpenOrders, wsRecentFills, wsSpotCreditState, wsSpotState } from './snapshots'
import { ChainState } from './state'
import { createTradeHandler } from './trade-handler'
import type { HttpResult, TradingService, TradingServiceOptions } from './types'

export function createTradingService(opts: TradingServiceOptions): TradingService {
  const chainId = opts.chainId
  const now = opts.now ?? Date.now
  const random = opts.random ?? Math.random
  const blockMs = opts.blockMs ?? 100
  const waitBudgetMs = opts.waitBudgetMs ?? 3000
  const maxPending = opts.maxPending ?? 5_000
  const limits = opts.rateLimits === undefined ? { infoPerSec: 1, tradePerSec: 1, signerPerSec: 1000 } : opts.rateLimits
  const infoBuckets = limits ? new TokenBuckets(limits.infoPerSec, now) : null
  const tradeBuckets = limits ? new TokenBuckets(limits.tradePerSec, now) : null
  const signerWindow = limits ? new SlidingWindow(limits.signerPerSec, now) : null

  const state = new ChainState()
  const feeAccount = FEE_ACCOUNT as Address
  if (opts.seedDefaults !== false) {
    DEFAULT_ASSETS.forEach((a) => state.addAsset(a))
    DEFAULT_MARKETS.forEach((m) => addMarket(state, m))
    const t = now()
    DEFAULT_MARKS.forEach((m) => state.marks.set(m.assetId, { usdAtoms: m.usdAtoms, sourceTsMs: t }))
  }
  state.createAccount(feeAccount, 'balance')

  const faults = noFaults()
  const core: ServiceCore = { chainId, now, state, faults, feeAccount, fires: (rule) => faultFires(rule, random) }
  const blocks = new BlockProducer(core)
  const handleTrade = createTradeHandler(core, blocks, { tradeBuckets, signerWindow, maxPending, waitBudgetMs })
  let timer: ReturnType<typeof setInterval> | null = null

  async function handleInfo(body: unknown, ip: string): Promise<HttpResult> {
    if (core.fires(faults.rateLimited)) {
      const ms = faults.rateLimited?.retryAfterMs ?? 1000
      return infoError(429, 'RateLimited', `Rate limited, retry after ${ms}ms`)
    }
    const wait = infoBuckets?.take(ip) ?? 0
    if (wait > 0) return infoError(429, 'RateLimited', `Rate limited, retry after ${wait}ms`)
    return dispatchInfo({ state, nowMs: state.timeMs || now(), staleMarks: faults.staleMarks, oracle: oracleStatus(core) }, body)
  }

  const produceBlock = () => blocks.produceBlock()

  const service: TradingService = {
    chainId,
    faults,
    feeAccount,
    handleInfo,
    handleTrade,
    onBlock: (listener) => blocks.onBlock(listener),
    marketExists: (id) => wsL2Book(state, id, 0) !== null,
    l2Book: (id, depth = 10) => wsL2Book(state, id, depth),
    bbo: (id) => wsBbo(state, id),
    allMids: () => wsAllMids(state),
    openOrders: (u) => wsOpenOrders(state, u),
    spotState: (u) => wsSpotState(state, u),
    spotCreditState: (u) => wsSpotCreditState(state, u, state.timeMs || now(), faults.staleMarks),
    recentFills: (u, n) => wsRecentFills(state, u, n),
    head: () => ({ height: state.height, timeMs: state.timeMs }),
    marks: () =>
      [...state.marks].sort((x, y) => x[0] - y[0]).map(([assetId, m]) => ({ assetId, usdAtoms: m.usdAtoms, sourceTsMs: m.sourceTsMs })),
    oracleStatus: () => oracleStatus(core),
    ...createAdminOps(core, blocks),
    snapshot: () => snapshotState(state),
    restore(snap) {
      if (blocks.pendingCount > 0) throw new SandboxError('RestoreWhileBusy', 'cannot restore while transactions are pending')
      restoreState(state, snap)
      if (!state.accounts.has(feeAccount)) state.createAccount(feeAccount, 'balance')
    },
    pendingCount: () => blocks.pendingCount,
    produceBlock,
    advanceBlocks(count) {
      if (!Number.isSafeInteger(count) || count < 1 || count > 1_000_000_000) {
        throw new SandboxError('InvalidBlockCount', 'count must be an integer from 1 to 1e9')
      }
      produceBlock()
      if (count > 1) {
        // Empty heights: no transactions, no events; the block time stays (marks and nonces keep their meaning).
        state.height += count - 1
        blocks.prune()
      }
      return { height: state.height, timeMs: state.timeMs }
    },
    start() {
      if (timer || blockMs <= 0) return
      timer = setInterval(produceBlock, blockMs)
      timer.unref?.()
    },
    async stop() {
      if (timer) clearInterval(timer)
      timer = null
      // Waiters get the outcome of what is already queued.
      if (blocks.pendingCount > 0) produceBlock()
    },
  }
  return service
}
