/**
 * `startSandbox`: the built-in local exchange — trading service, earn pool, WebSocket,
 * faucet and admin endpoint on loopback — optionally seeded and persisted to a data directory.
 */
import { mkdir, open, readFile, rename } from 'node:fs/promises'
import { join } from 'node:path'
import type { Server } from 'node:http'
import type { Address } from 'viem'
import { createTradingService } from './trading'
import type { TradingService, TradingServiceOptions } from './trading/types'
import { CHAIN_IDS } from '../main/core/wire/chains'
import { EarnPool, type EarnSnapshot } from './earn/earn-pool'
import { EarnHandler } from './earn/earn-handler'
import { defaultEarnSettings, type EarnPoolSettings } from './earn/pool-settings'
import { createWsServer, type SandboxWsServer } from './ws/ws-server'
import { createAdminApi } from './admin/admin-api'
import { closeServer, createRouter, listenLoopback } from './http-server'
import { DEFAULT_SCENARIO, applyScenario, loadScenarioFile, type ScenarioSpec } from './scenario/scenario'
import { createMarketMaker, type MarketMaker } from './scenario/market-maker'
import { devBot } from './scenario/dev-keys'
import { createMarkWalker, type MarkWalker } from './trading/mark-walk'

export interface SandboxRateLimits {
  /** per-IP /info requests per second (spec default 1) */
  infoPerSec: number
  /** per-IP /trade requests per second (spec default 1) */
  tradePerSec: number
  /** per-signer writes per second (spec 1000) */
  signerPerSec: number
  /** per-IP earn requests per second before 201005 (not shown by the spec; default 20) */
  earnPerSec?: number
}

export interface StartSandboxOptions {
  /** loopback only; anything else is refused */
  host?: '127.0.0.1'
  /** 0 (default) lets the OS pick */
  port?: number
  /** serve the earn pool on its own port instead of the trading port */
  earnPort?: number
  /** true = the default scenario; a string = path of a scenario JSON file; false/absent = empty */
  seed?: boolean | string
  /** state survives restarts: JSON snapshots written here */
  dataDir?: string
  /** block cadence in ms (default 100) */
  blockMs?: number
  /** false disables every rate limit */
  rateLimits?: SandboxRateLimits | false
  /** scheduled-withdrawal wait (default 120 s) */
  earnPendingSeconds?: number
  /** earn payout stage duration (default 1000 ms) and yield period (default 60 s) */
  earnPayoutStageMs?: number
  earnYieldPeriodMs?: number
  /** /trade wait budget before `timeout` (spec: 3000 ms) */
  tradeWaitBudgetMs?: number
  /** WebSocket idle close (default 60 s) */
  wsIdleMs?: number
  /** market-making bot cycle (default from the scenario, 2 s); 0 disables the bot */
  botIntervalMs?: number
  /** oracle publish cadence: every mark moves and gets a fresh timestamp (default 1000 ms); 0 = never (marks go stale) */
  markIntervalMs?: number
  /** seed of the marks' random walk (default 1): the same seed gives the same sequence of marks */
  markSeed?: number
  /** largest mark move per publication, basis points of its anchor (default 5); 0 = republish unchanged */
  markStepBps?: number
  /** marks stay within anchor ± this many basis points (default 300) */
  markBandBps?: number
  /** how often the earn pool applies its time-driven moves on its own (default 1000 ms); 0 = only when read */
  earnTickMs?: number
  now?: () => number
  /** one line per notable event (startup, persistence failures) */
  log?: (line: string) => void
}

export interface SandboxHandle {
  /** base URL of `/info` and `/trade` */
  tradingUrl: string
  /** `ws://…/ws` */
  wsUrl: string
  /** base URL of the pool (`{earnUrl}/api/v3/earn`) */
  earnUrl: string
  /** base URL of the admin endpoint (`{adminUrl}/faults`, …) */
  adminUrl: string
  chainId: number
  trading: TradingService
  earn: EarnPool
  earnHandler: EarnHandler
  ws: SandboxWsServer
  /** the scenario's market maker, when seeded */
  bot: MarketMaker | null
  /** the oracle feed moving the marks */
  marks: MarkWalker
  /** writes the data directory now (no-op without one) */
  save(): Promise<void>
  stop(): Promise<void>
}

const FILES = { meta: 'sandbox.json', earn: 'earn.json', trading: 'trading.json' } as const

async function readJson(path: string): Promise<unknown | undefined> {
  try {
    return JSON.parse(await readFile(path, 'utf8'))
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return undefined
    throw new Error(`sandbox data file ${path} is unreadable: ${e instanceof Error ? e.message : String(e)}`, { cause: e })
  }
}

/** temp file, fsync, rename: a crash leaves the old or the new file, never half of one */
async function writeJsonAtomic(path: string, value: unknown): Promise<void> {
  const tmp = `${path}.tmp`
  const fh = await open(tmp, 'w', 0o600)
  try {
    await fh.writeFile(JSON.stringify(value, (_k, v) => (typeof v === 'bigint' ? `${v}n` : v)))
    await fh.sync()
  } finally {
    await fh.close()
  }
  await rename(tmp, path)
}

export async function startSandbox(opts: StartSandboxOptions = {}): Promise<SandboxHandle> {
  const host = opts.host ?? '127.0.0.1'
  if (host !== '127.0.0.1') throw new Error(`the sandbox binds to 127.0.0.1 only; refused host ${String(host)}`)
  const now = opts.now ?? Date.now
  const log = opts.log ?? (() => {})
  const chainId = CHAIN_IDS.sandbox
  const limits = opts.rateLimits
  const tradingOpts: TradingServiceOptions = { chainId, now }
  if (opts.blockMs !== undefined) tradingOpts.blockMs = opts.blockMs
  if (opts.tradeWaitBudgetMs !== undefined) tradingOpts.waitBudgetMs = opts.tradeWaitBudgetMs
  if (limits === false) tradingOpts.rateLimits = false
  else if (limits)
    tradingOpts.rateLimits = { infoPerSec: limits.infoPerSec, tradePerSec: limits.tradePerSec, signerPerSec: limits.signerPerSec }
  if (opts.dataDir) tradingOpts.dataDir = opts.dataDir
  const trading = createTradingService(tradingOpts)

  const settingsOverrides: Partial<EarnPoolSettings> = { chainId }
  if (opts.earnPendingSeconds !== undefined) settingsOverrides.pendingSeconds = opts.earnPendingSeconds
  if (opts.earnPayoutStageMs !== undefined) settingsOverrides.payoutStageMs = opts.earnPayoutStageMs
  if (opts.earnYieldPeriodMs !== undefined) settingsOverrides.yieldPeriodMs = opts.earnYieldPeriodMs
  const earn = new EarnPool(defaultEarnSettings(settingsOverrides), now)
  const earnHandler = new EarnHandler(earn, { now, ratePerSecond: limits === false ? false : (limits?.earnPerSec ?? 20) })

  // ---- persistence: restore before anything runs
  const dir = opts.dataDir
  const restored = { meta: false, trading: false }
  if (dir) {
    await mkdir(dir, { recursive: true })
    const meta = await readJson(join(dir, FILES.meta))
    if (meta !== undefined) {
      restored.meta = true
      const e = await readJson(join(dir, FILES.earn))
      if (e !== undefined) earn.restore(e as EarnSnapshot)
      const t = await readJson(join(dir, FILES.trading))
      if (t !== undefined) {
        trading.restore(reviveBigints(t))
        restored.trading = true
      }
    }
  }

  // The pool's vault must exist on the trading chain to receive direct transfers.
  const vault = earn.settings.vaultAddress.toLowerCase() as Address
  if (!restored.trading) trading.deposit(vault, 1, 200_000_000n)
  const offTransfers = trading.onBlock((b) => {
    for (const t of b.transfers) {
      if (t.to.toLowerCase() !== vault) continue
      try {
        earn.deposit({
          user: t.from,
          assetId: t.assetId,
          amount: t.atoms,
          type: 'direct_transfer',
          at: { height: t.height, txIndex: t.txIndex, eventIndex: t.eventIndex },
        })
      } catch (err) {
        log(`earn: direct transfer from ${t.from} not credited: ${err instanceof Error ? err.message : String(err)}`)
      }
    }
  })

  const ws = createWsServer(trading, { idleMs: opts.wsIdleMs ?? 60_000, now })
  const markOpts: Parameters<typeof createMarkWalker>[1] = { now, intervalMs: opts.markIntervalMs ?? 1000 }
  if (opts.markSeed !== undefined) markOpts.seed = opts.markSeed
  if (opts.markStepBps !== undefined) markOpts.stepBps = opts.markStepBps
  if (opts.markBandBps !== undefined) markOpts.bandBps = opts.markBandBps
  const marks = createMarkWalker(trading, markOpts)
  let bot: MarketMaker | null = null
  let tradingPort = 0
  let earnPortBound = 0
  const urls = () => ({
    tradingUrl: `http://${host}:${tradingPort}`,
    wsUrl: `ws://${host}:${tradingPort}/ws`,
    earnUrl: `http://${host}:${earnPortBound}`,
    adminUrl: `http://${host}:${tradingPort}/admin`,
  })

  let saving: Promise<void> | null = null
  let dirty = false
  const save = async (): Promise<void> => {
    if (!dir) return
    while (saving) await saving
    saving = (async () => {
      dirty = false
      await writeJsonAtomic(join(dir, FILES.earn), earn.snapshot())
      await writeJsonAtomic(join(dir, FILES.trading), trading.snapshot())
      await writeJsonAtomic(join(dir, FILES.meta), { version: 1, chainId, savedAt: now() })
    })()
    try {
      await saving
    } finally {
      saving = null
    }
  }

  const admin = createAdminApi({
    trading,
    earn,
    ws,
    urls,
    marks,
    bot: {
      running: () => bot?.running() ?? false,
      pause: () => bot?.pause(),
      resume: () => bot?.resume(),
    },
    ...(dir ? { save } : {}),
  })

  const servers: Server[] = []
  const separateEarn = opts.earnPort !== undefined
  const main = await listenLoopback(
    createRouter({ trading, earn: earnHandler, ws, admin, serveEarn: !separateEarn, serveTrading: true }),
    host,
    opts.port ?? 0,
  )
  servers.push(main.server)
  tradingPort = main.port
  earnPortBound = main.port
  main.server.on('upgrade', (req, socket, head) => {
    const path = new URL(req.url ?? '/', 'http://sandbox').pathname
    if (path === '/ws') ws.handleUpgrade(req, socket, head)
    else socket.destroy()
  })
  if (separateEarn) {
    try {
      const e = await listenLoopback(
        createRouter({ trading, earn: earnHandler, ws, admin, serveEarn: true, serveTrading: false }),
        host,
        opts.earnPort ?? 0,
      )
      servers.push(e.server)
      earnPortBound = e.port
    } catch (err) {
      await closeServer(main.server)
      await ws.close()
      throw err
    }
  }

  trading.start()

  // ---- seed a fresh sandbox. A restored one keeps its state; when the trading service could
  // not restore its own (no snapshot support), its part of the scenario is seeded again.
  if (opts.seed && !(restored.meta && restored.trading)) {
    const spec: ScenarioSpec = typeof opts.seed === 'string' ? await loadScenarioFile(opts.seed) : DEFAULT_SCENARIO
    const applied = await applyScenario(trading, earn, withBotInterval(spec, opts.botIntervalMs), { now, earn: !restored.meta })
    bot = applied.bot
  } else if (opts.seed && opts.botIntervalMs !== 0) {
    const spec: ScenarioSpec = typeof opts.seed === 'string' ? await loadScenarioFile(opts.seed) : DEFAULT_SCENARIO
    if (spec.marketMaker) {
      bot = createMarketMaker(trading, {
        maker: devBot(0),
        taker: devBot(1),
        markets: spec.marketMaker.markets,
        intervalMs: opts.botIntervalMs ?? spec.marketMaker.intervalMs,
        now,
      })
    }
  }

  // The oracle feed starts after seeding (the scenario's credit lines are sized on the seeded
  // marks); a restored sandbox republishes at once, so its old marks are not stale.
  if (restored.trading && (opts.markIntervalMs ?? 1000) > 0) marks.step()
  marks.start()
  // Earn withdrawals move through their stages on their own, not only when someone reads.
  let earnTimer: ReturnType<typeof setInterval> | null = null
  const earnTickMs = opts.earnTickMs ?? 1000
  if (earnTickMs > 0) {
    earnTimer = setInterval(() => {
      try {
        earn.advance()
      } catch (err) {
        log(`earn: could not advance: ${err instanceof Error ? err.message : String(err)}`)
      }
    }, earnTickMs)
    earnTimer.unref?.()
  }

  let saveTimer: ReturnType<typeof setInterval> | null = null
  let offDirty: (() => void) | null = null
  if (dir) {
    const offEarn = earn.onChange(() => (dirty = true))
    const offBlocks = trading.onBlock((b) => {
      if (b.trades.length > 0 || b.orderUpdates.length > 0 || b.touchedUsers.size > 0) dirty = true
    })
    offDirty = () => {
      offEarn()
      offBlocks()
    }
    await save()
    saveTimer = setInterval(() => {
      if (dirty) save().catch((err) => log(`sandbox: could not save ${dir}: ${err instanceof Error ? err.message : String(err)}`))
    }, 2000)
    saveTimer.unref?.()
  }

  const u = urls()
  log(`sandbox: trading ${u.tradingUrl}, ws ${u.wsUrl}, earn ${u.earnUrl}/api/v3/earn, admin ${u.adminUrl}`)

  let stopping: Promise<void> | null = null
  return {
    ...u,
    chainId,
    trading,
    earn,
    earnHandler,
    ws,
    get bot() {
      return bot
    },
    marks,
    save,
    stop() {
      stopping ??= (async () => {
        if (saveTimer) clearInterval(saveTimer)
        if (earnTimer) clearInterval(earnTimer)
        marks.stop()
        await bot?.stop()
        await ws.close()
        for (const s of servers) await closeServer(s)
        await trading.stop()
        offTransfers()
        offDirty?.()
        if (dir) await save()
      })()
      return stopping
    },
  }
}

function withBotInterval(spec: ScenarioSpec, intervalMs: number | undefined): ScenarioSpec {
  if (intervalMs === undefined || !spec.marketMaker) return spec
  if (intervalMs === 0) {
    const { marketMaker: _drop, ...rest } = spec
    return rest
  }
  return { ...spec, marketMaker: { ...spec.marketMaker, intervalMs } }
}

/** Inverse of the `${n}n` bigint encoding used by the data files. */
function reviveBigints(value: unknown): unknown {
  return JSON.parse(JSON.stringify(value), (_k, v) => (typeof v === 'string' && /^-?\d+n$/.test(v) ? BigInt(v.slice(0, -1)) : v))
}

export { DEFAULT_SCENARIO } from './scenario/scenario'
export type { ScenarioSpec } from './scenario/scenario'
export { DEV_OWNERS, DEV_AGENTS, DEV_BOTS, devKey } from './scenario/dev-keys'
export { DEMO_ACCOUNTS, type DemoAccount } from './demo-accounts'
