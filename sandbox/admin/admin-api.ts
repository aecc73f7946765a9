/**
 * `/admin/*` and the `/sandbox/deposit` faucet (loopback only; the router checks the peer).
 * Switches faults at run time and exposes ground truth: every executed transaction (by cloid)
 * and every earn operation. Amounts in bodies are atoms as decimal strings.
 */
import type { Address } from 'viem'
import {
  ENVELOPE_FAILURE_CODES,
  type EnvelopeFailureCode,
  type OracleReasonCode,
  type TradingFaults,
  type TradingService,
} from '../trading/types'
import { noFaults } from '../trading/fault-injection'
import type { MarkWalker } from '../trading/mark-walk'
import type { EarnPool, EarnFaults } from '../earn/earn-pool'
import type { SandboxWsServer, WsFaults } from '../ws/ws-server'

export interface AdminResult {
  status: number
  body: unknown
}

export interface AdminDeps {
  trading: TradingService
  earn: EarnPool
  ws: SandboxWsServer
  urls: () => Record<string, string>
  /** the oracle feed (freeze/unfreeze/step) */
  marks?: MarkWalker
  /** pauses/resumes the scenario's market-making bot, when there is one */
  bot?: { running(): boolean; pause(): void; resume(): void }
  /** writes the data directory now, when persistence is on */
  save?: () => Promise<void>
}

export interface AdminApi {
  handle(method: string, route: string, body: unknown, query: URLSearchParams): Promise<AdminResult>
  describe(): unknown
}

const ADDRESS = /^0x[0-9a-fA-F]{40}$/
const ATOMS = /^(0|[1-9][0-9]*)$/
const CLOID = /^0x[0-9a-fA-F]{32}$/
const FAILURE_CODE = /^[a-z][a-z0-9_]{0,63}$/
const ORACLE_REASONS: OracleReasonCode[] = ['ProviderError', 'MissingRoute', 'StalePrice', 'InvalidPrice']

class AdminError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message)
  }
}
const bad = (m: string) => new AdminError(400, m)

function obj(body: unknown): Record<string, unknown> {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) throw bad('body must be a JSON object')
  return body as Record<string, unknown>
}
function address(v: unknown, field = 'address'): Address {
  if (typeof v !== 'string' || !ADDRESS.test(v)) throw bad(`${field} must be a 0x + 40 hex address`)
  return v.toLowerCase() as Address
}
function atoms(v: unknown, field: string): bigint {
  if (typeof v !== 'string' || !ATOMS.test(v)) throw bad(`${field} must be a decimal atoms string`)
  return BigInt(v)
}
function int(v: unknown, field: string): number {
  if (typeof v !== 'number' || !Number.isSafeInteger(v) || v < 0) throw bad(`${field} must be a non-negative integer`)
  return v
}

const TRADING_FAULT_KEYS: (keyof TradingFaults)[] = [
  'tradeTimeout',
  'unavailable503',
  'nodeUnreachable504',
  'rateLimited',
  'placeOrderSuspended',
  'staleMarks',
  'oracleUnavailable',
  'queryLagBackpressure',
  'failTx',
  'envelopeFailure',
  'feesInactive',
  'vaultPayoutsInactive',
]

function intIn(v: unknown, field: string, min: number, max: number): number {
  if (typeof v !== 'number' || !Number.isSafeInteger(v) || v < min || v > max)
    throw bad(`${field} must be an integer from ${min} to ${max}`)
  return v
}

/** `failTx`: `{cloid?, count?}` — a cloid targets that write (once unless count says more), else the next `count` (default 1) writes. */
function failTxRule(v: unknown): TradingFaults['failTx'] {
  if (v === null) return null
  const r = obj(v)
  for (const k of Object.keys(r)) if (k !== 'cloid' && k !== 'count') throw bad(`unknown failTx field: ${k}`)
  const out: { cloid?: string; count?: number } = {}
  if (r.cloid !== undefined) {
    if (typeof r.cloid !== 'string' || !CLOID.test(r.cloid)) throw bad('failTx.cloid must be 0x + 16 bytes hex')
    out.cloid = r.cloid.toLowerCase()
  }
  if (r.count !== undefined) out.count = intIn(r.count, 'failTx.count', 1, 1_000_000)
  return out
}

/** `envelopeFailure`: `{code, count?, probability?}` with one of the six envelope-level codes. */
function envelopeFailureRule(v: unknown): TradingFaults['envelopeFailure'] {
  if (v === null) return null
  const r = obj(v)
  if (!ENVELOPE_FAILURE_CODES.includes(r.code as EnvelopeFailureCode))
    throw bad(`envelopeFailure.code must be one of ${ENVELOPE_FAILURE_CODES.join(', ')}`)
  const { code: _c, ...rule } = r
  for (const k of Object.keys(rule)) if (k !== 'count' && k !== 'probability') throw bad(`unknown envelopeFailure field: ${k}`)
  const parsed = faultRule(rule, 'envelopeFailure', false) as { count?: number; probability?: number }
  // no count and no probability means "the next one", not "every one"
  if (rule.count === undefined && rule.probability === undefined) return { code: r.code as EnvelopeFailureCode, count: 1 }
  return { ...parsed, code: r.code as EnvelopeFailureCode }
}

/** Fault rules: `{count?, probability?}` with `executed` where the outcome can be unknown. */
function faultRule(v: unknown, key: string, needsExecuted: boolean): unknown {
  if (v === null) return null
  const r = obj(v)
  const out: Record<string, unknown> = {}
  if (r.count !== undefined) out.count = int(r.count, `${key}.count`)
  if (r.probability !== undefined) {
    if (typeof r.probability !== 'number' || r.probability < 0 || r.probability > 1) throw bad(`${key}.probability must be 0..1`)
    out.probability = r.probability
  }
  if (out.count === undefined && out.probability === undefined) out.probability = 1
  if (needsExecuted) {
    if (typeof r.executed !== 'boolean') throw bad(`${key}.executed must be true or false (did the transaction still run?)`)
    out.executed = r.executed
  }
  if (key === 'rateLimited' && r.retryAfterMs !== undefined) out.retryAfterMs = int(r.retryAfterMs, 'rateLimited.retryAfterMs')
  return out
}

function applyTradingFaults(faults: TradingFaults, patch: Record<string, unknown>): void {
  for (const [k, v] of Object.entries(patch)) {
    if (!(TRADING_FAULT_KEYS as string[]).includes(k)) throw bad(`unknown trading fault: ${k}`)
    const f = faults as unknown as Record<string, unknown>
    switch (k as keyof TradingFaults) {
      case 'tradeTimeout':
      case 'nodeUnreachable504':
        f[k] = faultRule(v, k, true)
        break
      case 'unavailable503':
      case 'rateLimited':
      case 'queryLagBackpressure':
        f[k] = faultRule(v, k, false)
        break
      case 'failTx':
        f[k] = failTxRule(v)
        break
      case 'envelopeFailure':
        f[k] = envelopeFailureRule(v)
        break
      case 'placeOrderSuspended':
      case 'staleMarks':
      case 'feesInactive':
      case 'vaultPayoutsInactive':
        if (typeof v !== 'boolean') throw bad(`${k} must be a boolean`)
        f[k] = v
        break
      case 'oracleUnavailable':
        if (v !== null && !ORACLE_REASONS.includes(v as OracleReasonCode))
          throw bad(`oracleUnavailable must be null or one of ${ORACLE_REASONS.join(', ')}`)
        f[k] = v
        break
    }
  }
}

function applyWsFaults(faults: WsFaults, patch: Record<string, unknown>): void {
  for (const [k, v] of Object.entries(patch)) {
    if (k === 'dropProbability') {
      if (typeof v !== 'number' || v < 0 || v > 1) throw bad('ws.dropProbability must be 0..1')
      faults.dropProbability = v
    } else if (k === 'silent') {
      if (typeof v !== 'boolean') throw bad('ws.silent must be a boolean')
      faults.silent = v
    } else if (k === 'enforceConnectionLimits') {
      if (typeof v !== 'boolean') throw bad('ws.enforceConnectionLimits must be a boolean')
      faults.enforceConnectionLimits = v
    } else throw bad(`unknown ws fault: ${k}`)
  }
}

function applyEarnFaults(pool: EarnPool, patch: Record<string, unknown>): void {
  const f: EarnFaults = pool.faults
  for (const [k, v] of Object.entries(patch)) {
    if (k === 'unavailable' || k === 'manualReview') {
      if (typeof v !== 'boolean') throw bad(`earn.${k} must be a boolean`)
      f[k] = v
    } else if (k === 'timeout') {
      if (v !== null && v !== 'executed' && v !== 'not-executed') throw bad('earn.timeout must be null, "executed" or "not-executed"')
      f.timeout = v
    } else if (k === 'paused') {
      if (typeof v !== 'boolean') throw bad('earn.paused must be a boolean')
      pool.paused = v
    } else throw bad(`unknown earn fault: ${k}`)
  }
}

export function createAdminApi(deps: AdminDeps): AdminApi {
  const { trading, earn, ws } = deps
  const state = () => ({
    faults: { trading: { ...trading.faults }, ws: { ...ws.faults }, earn: { ...earn.faults, paused: earn.paused } },
    ws_connections: ws.connectionCount(),
    ws_limits: ws.limitStats(),
    bot_running: deps.bot?.running() ?? false,
    marks_frozen: deps.marks?.frozen() ?? false,
    oracle: trading.oracleStatus(),
    head: trading.head(),
  })
  const marksView = () => ({
    frozen: deps.marks?.frozen() ?? false,
    oracle: trading.oracleStatus(),
    marks: trading.marks().map((m) => ({ asset_id: m.assetId, usd_atoms: m.usdAtoms.toString(), source_ts_ms: m.sourceTsMs })),
    anchors: (deps.marks?.anchors() ?? []).map((a) => ({ asset_id: a.assetId, usd_atoms: a.usdAtoms.toString() })),
  })
  const walker = (): MarkWalker => {
    if (!deps.marks) throw new AdminError(409, 'this sandbox has no oracle feed')
    return deps.marks
  }

  const routes: Record<string, (body: unknown, q: URLSearchParams) => unknown | Promise<unknown>> = {
    'GET state': () => state(),
    'POST faults': (body) => {
      const b = obj(body)
      for (const k of Object.keys(b)) if (!['trading', 'ws', 'earn'].includes(k)) throw bad(`unknown fault group: ${k}`)
      // Validate everything before applying anything, so a bad request changes nothing.
      const trial = { t: structuredClone(trading.faults), w: { ...ws.faults } }
      if (b.trading !== undefined) applyTradingFaults(trial.t, obj(b.trading))
      if (b.ws !== undefined) applyWsFaults(trial.w, obj(b.ws))
      if (b.earn !== undefined) {
        const e = obj(b.earn)
        for (const [k, v] of Object.entries(e)) {
          if (!['unavailable', 'manualReview', 'timeout', 'paused'].includes(k)) throw bad(`unknown earn fault: ${k}`)
          if (k === 'timeout' ? v !== null && v !== 'executed' && v !== 'not-executed' : typeof v !== 'boolean')
            throw bad(`earn.${k} has a bad value`)
        }
      }
      if (b.trading !== undefined) applyTradingFaults(trading.faults, obj(b.trading))
      // Stale marks are stale for real: the feed stops publishing, so every mark's timestamp
      // ages as a stuck upstream's would (not only the oracle's verdict), and resumes after.
      const stale = b.trading !== undefined ? obj(b.trading).staleMarks : undefined
      if (stale === true && deps.marks && !deps.marks.frozen()) deps.marks.freeze()
      if (stale === false && deps.marks?.frozen()) deps.marks.unfreeze()
      if (b.ws !== undefined) applyWsFaults(ws.faults, obj(b.ws))
      if (b.earn !== undefined) applyEarnFaults(earn, obj(b.earn))
      return state()
    },
    'POST faults/reset': () => {
      applyTradingFaults(trading.faults, { ...noFaults() })
      if (deps.marks?.frozen()) deps.marks.unfreeze()
      ws.faults.dropProbability = 0
      ws.faults.silent = false
      ws.faults.enforceConnectionLimits = false
      earn.faults.unavailable = false
      earn.faults.manualReview = false
      earn.faults.timeout = null
      earn.paused = false
      return state()
    },
    'POST ws/disconnect': () => ({ disconnected: ws.disconnectAll() }),
    'POST credit/freeze': (body) => {
      trading.freeze(address(obj(body).address))
      return { ok: true }
    },
    'POST credit/unfreeze': (body) => {
      trading.unfreeze(address(obj(body).address))
      return { ok: true }
    },
    'POST mark': (body) => {
      const b = obj(body)
      trading.setMark(
        int(b.asset_id, 'asset_id'),
        atoms(b.usd_atoms, 'usd_atoms'),
        b.source_ts_ms === undefined ? undefined : int(b.source_ts_ms, 'source_ts_ms'),
      )
      return { ok: true }
    },
    'POST oracle': (body) => {
      const b = obj(body)
      if (b.status === 'available') trading.setOracle({ status: 'available' })
      else if (b.status === 'unavailable' && ORACLE_REASONS.includes(b.reason_code as OracleReasonCode)) {
        trading.setOracle({ status: 'unavailable', reason_code: b.reason_code as OracleReasonCode })
      } else throw bad(`status must be "available", or "unavailable" with reason_code one of ${ORACLE_REASONS.join(', ')}`)
      return { ok: true }
    },
    'GET marks': () => marksView(),
    'POST marks/freeze': () => {
      walker().freeze()
      return marksView()
    },
    'POST marks/unfreeze': () => {
      walker().unfreeze()
      return marksView()
    },
    'POST marks/step': (body) => {
      const b = body === undefined ? {} : obj(body)
      const n = b.count === undefined ? 1 : intIn(b.count, 'count', 1, 100_000)
      const w = walker()
      if (w.frozen()) throw new AdminError(409, 'marks are frozen; unfreeze first')
      for (let i = 0; i < n; i++) w.step()
      return marksView()
    },
    'POST blocks/advance': (body) => {
      const b = obj(body)
      const head = trading.advanceBlocks(intIn(b.count, 'count', 1, 1_000_000_000))
      return { height: head.height, time_ms: head.timeMs }
    },
    'POST earn/hold-failure': (body) => {
      const b = obj(body)
      if (typeof b.operation_id !== 'string') throw bad('operation_id must be a string')
      if (typeof b.failure_code !== 'string' || !FAILURE_CODE.test(b.failure_code))
        throw bad('failure_code must be a lowercase code ([a-z][a-z0-9_]*, at most 64 chars)')
      if (b.failure_message !== undefined && (typeof b.failure_message !== 'string' || b.failure_message.length > 500))
        throw bad('failure_message must be a string of at most 500 chars')
      return earn.holdWithFailure(b.operation_id, b.failure_code, typeof b.failure_message === 'string' ? b.failure_message : undefined)
    },
    'GET ground-truth': (_b, q) => {
      const cloid = q.get('cloid')?.toLowerCase()
      const user = q.get('user')?.toLowerCase()
      const txs = trading
        .groundTruth()
        .filter((t) => (!cloid || t.cloid?.toLowerCase() === cloid) && (!user || t.authority === user || t.owner === user))
      return { transactions: txs, earn: earn.groundTruth() }
    },
    'POST faucet': (body) => {
      const b = obj(body)
      const target = b.target ?? 'trading'
      const who = address(b.address)
      const assetId = int(b.asset_id, 'asset_id')
      const amount = atoms(b.amount, 'amount')
      if (amount === 0n) throw bad('amount must be greater than 0')
      if (target === 'trading') {
        trading.deposit(who, assetId, amount)
        return { ok: true, balances: trading.balances(who) }
      }
      if (target === 'earn') {
        const type = b.deposit_type ?? 'bridge_deposit'
        if (type !== 'bridge_deposit' && type !== 'direct_transfer') throw bad('deposit_type must be bridge_deposit or direct_transfer')
        return { ok: true, deposit: earn.deposit({ user: who, assetId, amount, type, reject: b.reject === true }) }
      }
      throw bad('target must be "trading" or "earn"')
    },
    'POST earn/resolve': (body) => earn.resolveManualReview(String(obj(body).operation_id)),
    'POST earn/claimable': (body) => {
      earn.makeClaimable(String(obj(body).operation_id))
      return { ok: true }
    },
    'POST block': () => {
      const b = trading.produceBlock()
      return { height: b.height, time_ms: b.timeMs }
    },
    'POST bot/pause': () => {
      deps.bot?.pause()
      return { running: deps.bot?.running() ?? false }
    },
    'POST bot/resume': () => {
      deps.bot?.resume()
      return { running: deps.bot?.running() ?? false }
    },
    'POST save': async () => {
      if (!deps.save) throw new AdminError(409, 'the sandbox runs without a data directory')
      await deps.save()
      return { ok: true }
    },
  }

  return {
    async handle(method, route, body, query) {
      const fn = routes[`${method} ${route}`]
      if (!fn)
        return {
          status: 404,
          body: { error: { code: 'NotFound', message: `no admin route ${method} ${route}`, routes: Object.keys(routes) } },
        }
      try {
        return { status: 200, body: await fn(body, query) }
      } catch (e) {
        if (e instanceof AdminError) return { status: e.status, body: { error: { code: 'InvalidAdminRequest', message: e.message } } }
        const m = e instanceof Error ? e.message : 'failed'
        return { status: 400, body: { error: { code: 'AdminActionFailed', message: m } } }
      }
    },
    describe() {
      return { service: 'treasury-desk sandbox', urls: deps.urls(), admin_routes: Object.keys(routes) }
    },
  }
}
