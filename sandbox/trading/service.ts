import { randomBytes } from 'node:crypto'
import { keccak256, concat, numberToHex, recoverAddress, recoverTypedDataAddress, type Address, type Hex } from 'viem'
import { SandboxError, errorCode } from '../errors'
import { parseDecimal } from '../../main/core/money/decimal'
import { CHAIN_IDS } from '../../main/core/wire/chains'
import type { BatchItem, BatchItemResponse, Eip712Action, Replacement, TradeResponse, TradeResponseBody } from '../../main/core/wire/actions'
import { normalizeSignature, signingRequest } from '../../main/core/wire/signing'
import { encodeLegacyPayload } from '../../main/core/wire/legacy'
import { ACTIVATION_FEE_ASSETS, ACTIVATION_FEE_ATOMS, DEFAULT_ASSETS, DEFAULT_MARKETS, DEFAULT_MARKS, FEE_ACCOUNT, RETAINED_BLOCKS } from './defaults'
import { MAX_TRADE_BODY_BYTES, parseEnvelope, ShapeError, type ParsedEnvelope } from './envelope'
import { dispatchInfo, infoError } from './info'
import { cancelAll, cancelOrder, modifyOrder, placeOrder, type BlockCtx, type PlaceRequest } from './matching'
import { applyOwnerAction, checkOwnerAction, pruneWithdrawNonces } from './owner-actions'
import { snapshotState, restoreState } from './persistence'
import { SlidingWindow, TokenBuckets } from './rate-limit'
import { wsAllMids, wsBbo, wsL2Book, wsOpenOrders, wsRecentFills, wsSpotCreditState, wsSpotState } from './snapshots'
import { ChainState, type Account, type TxRecord } from './state'
import type { AssetConfig, BlockEvents, FaultRule, HttpResult, MarketConfig, OracleReasonCode, TradingFaults, TradingService, TradingServiceOptions } from './types'
import { assetsMissingFreshMark, baseAtoms, creditView, isMarkFresh, notional } from './valuation'

const DAY_MS = 86_400_000n
const NONCE_RETAINED = 100
const TRACE_ID_RE = /^[A-Za-z0-9._:-]{1,128}$/

type ExecResult = { submission: 'accepted'; response: TradeResponseBody } | { submission: 'rejected'; code: string }

/** An injected execution failure decided when the write was admitted. */
type ForcedFailure = { kind: 'failed' } | { kind: 'envelope'; code: string }

interface PendingTx {
  parsed: ParsedEnvelope
  authority: Address
  owner: Address
  settle: (r: ExecResult) => void
  forced: ForcedFailure | null
}

/** The response of a transaction that failed as a whole with no single code: every leaf is `failed`. */
function failedResponse(a: ParsedEnvelope['action']): TradeResponseBody {
  const leaf = { error: 'failed' }
  switch (a.type) {
    case 'batch':
      return { type: 'batch', statuses: a.items.map((it) => (it.type === 'cancelAll' ? { type: 'cancelAll', statuses: [leaf] } : { type: it.type, status: leaf })) } as TradeResponseBody
    case 'cancelAll':
      return { type: 'cancelAll', statuses: [leaf] } as TradeResponseBody
    case 'order':
    case 'cancel':
    case 'modify':
      return { type: a.type, status: leaf } as TradeResponseBody
    default:
      return { type: 'default', status: leaf } as TradeResponseBody
  }
}

function isCancelOnly(item: BatchItem): boolean {
  return item.type === 'cancel' || item.type === 'cancelAll'
}

function cloidsOf(p: ParsedEnvelope): string[] {
  const a = p.action
  const out: string[] = []
  const fromItem = (it: BatchItem) => {
    if (it.type === 'order' && it.cloid) out.push(it.cloid)
    if (it.type === 'modify' && it.replacement.cloid) out.push(it.replacement.cloid)
  }
  if (a.type === 'batch') a.items.forEach(fromItem)
  else if (a.type === 'order' || a.type === 'modify' || a.type === 'cancel' || a.type === 'cancelAll') fromItem(a)
  else if ('cloid' in a) out.push(a.cloid)
  return out.map((c) => c.toLowerCase())
}

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
    DEFAULT_MARKETS.forEach((m) => addMarket(m))
    const t = now()
    DEFAULT_MARKS.forEach((m) => state.marks.set(m.assetId, { usdAtoms: m.usdAtoms, sourceTsMs: t }))
  }
  state.createAccount(feeAccount, 'balance')

  const faults: TradingFaults = {
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

  let queue: PendingTx[] = []
  const pendingNonces = new Map<Address, Set<bigint>>()
  const pendingWithdrawNonces = new Set<string>()
  const listeners = new Set<(b: BlockEvents) => void>()
  let timer: ReturnType<typeof setInterval> | null = null

  /** A fault fires on its remaining count first, else with its probability. */
  function fires(rule: FaultRule | null): boolean {
    if (!rule) return false
    if (rule.count !== undefined && rule.count > 0) {
      rule.count -= 1
      return true
    }
    return rule.probability !== undefined && rule.probability > 0 && random() < rule.probability
  }

  /** The oracle as the admin forced it (fault or `setOracle`), regardless of mark ages. */
  function forcedOracle() {
    if (faults.oracleUnavailable) return { status: 'unavailable' as const, reason_code: faults.oracleUnavailable }
    return state.oracle
  }

  /** What `oracleStatus` reports: a forced state, else `StalePrice` exactly when some mark is stale. */
  function oracle(): { status: 'available' } | { status: 'unavailable'; reason_code: OracleReasonCode } {
    const forced = forcedOracle()
    if (forced.status !== 'available') return forced
    const at = state.timeMs || now()
    for (const id of state.marks.keys()) {
      if (!isMarkFresh(state, id, at, faults.staleMarks)) return { status: 'unavailable', reason_code: 'StalePrice' }
    }
    return forced
  }

  /** Decides, at admission, whether an injected execution failure hits this write. */
  function forcedFailureFor(p: ParsedEnvelope): ForcedFailure | null {
    const env = faults.envelopeFailure
    if (env && (env.code !== 'InvalidBatchLength' || p.action.type === 'batch') && fires(env)) {
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

  function addMarket(m: MarketConfig): void {
    const base = state.assets.get(m.base_asset_id)
    const quote = state.assets.get(m.quote_asset_id)
    if (!base || !quote) throw new SandboxError('InvalidMarket', `market ${m.market_id} refers to an unknown asset`)
    // Integer-exact settlement: notional and base atoms must never need rounding.
    if (m.price_decimals + m.base_quantity_decimals > quote.balance_decimals || m.base_quantity_decimals > base.balance_decimals) {
      throw new SandboxError('InvalidMarket', `market ${m.market_id}: price and quantity decimals exceed the asset decimals`)
    }
    state.addMarket(m)
  }

  // ---------------- responses ----------------

  function traceIdOf(headers: Record<string, string | undefined>): string {
    const given = headers['x-trace-id'] ?? headers['X-Trace-Id']
    return given && TRACE_ID_RE.test(given) ? given : randomBytes(16).toString('hex')
  }

  function reply(status: number, body: TradeResponse, traceId: string): HttpResult {
    return { status, body, headers: { 'x-trace-id': traceId } }
  }

  function rejected(traceId: string, code: string, txHash?: Hex, status = 200, retryAfterMs?: number): HttpResult {
    const body: TradeResponse = { submission_status: 'rejected' }
    if (txHash) body.tx_hash = txHash
    body.error = retryAfterMs === undefined ? { code } : { code, retry_after_ms: retryAfterMs }
    return reply(status, body, traceId)
  }

  function resultReply(r: ExecResult, txHash: Hex, traceId: string): HttpResult {
    if (r.submission === 'accepted') return reply(200, { submission_status: 'accepted', tx_hash: txHash, response: r.response }, traceId)
    return rejected(traceId, r.code, txHash)
  }

  // ---------------- nonces ----------------

  function nonceProblem(authority: Address, nonce: bigint, refMs: number): boolean {
    const ref = BigInt(refMs)
    if (nonce < ref - 2n * DAY_MS || nonce > ref + DAY_MS) return true
    const list = state.nonces.get(authority)
    if (list) {
      if (list.includes(nonce)) return true
      if (list.length >= NONCE_RETAINED && nonce <= list[0]!) return true
    }
    return false
  }

  function consumeNonce(authority: Address, nonce: bigint): void {
    let list = state.nonces.get(authority)
    if (!list) {
      list = []
      state.nonces.set(authority, list)
    }
    let i = list.length
    while (i > 0 && list[i - 1]! > nonce) i--
    list.splice(i, 0, nonce)
    if (list.length > NONCE_RETAINED) list.shift()
  }

  // ---------------- authority ----------------

  async function recover(p: ParsedEnvelope, cid: number): Promise<Address> {
    const signature = normalizeSignature(p.envelope.signature!)
    if (p.scheme === 'legacy') {
      const payload = cid === chainId ? p.payload : encodeLegacyPayload({ action: p.action, nonce: p.nonce, agentEpoch: p.agentEpoch, expiresAfterMs: p.expiresAfterMs, chainId: cid })
      return (await recoverAddress({ hash: keccak256(payload), signature })).toLowerCase() as Address
    }
    const req = signingRequest({ action: p.action, nonce: p.nonce, expiresAfterMs: p.expiresAfterMs }, cid)
    if (req.scheme !== 'eip712') throw new SandboxError('Internal', 'scheme mismatch')
    return (await recoverTypedDataAddress({ ...req.typedData, signature } as Parameters<typeof recoverTypedDataAddress>[0])).toLowerCase() as Address
  }

  function known(a: Address): boolean {
    return state.accounts.has(a) || state.agentIndex.has(a)
  }

  /** An unknown signer that recovers to a known one under another network's chain id signed for the wrong chain. */
  async function signedForOtherChain(p: ParsedEnvelope): Promise<boolean> {
    for (const cid of Object.values(CHAIN_IDS)) {
      if (cid === chainId) continue
      try {
        if (known(await recover(p, cid))) return true
      } catch {
        // not recoverable under that chain id either
      }
    }
    return false
  }

  // ---------------- admission ----------------

  function accountAdmission(acct: Account, p: ParsedEnvelope): string | null {
    const a = p.action
    const items: BatchItem[] = a.type === 'batch' ? a.items : a.type === 'order' || a.type === 'modify' || a.type === 'cancel' || a.type === 'cancelAll' ? [a] : []
    if (items.every(isCancelOnly)) return null
    if (acct.status === 'frozen') return acct.kind === 'credit' ? 'SpotCreditAccountFrozen' : 'AccountFrozen'
    if (acct.kind === 'credit') {
      // stale marks are judged per asset below (OracleMarkPriceMissing); this is the forced outage
      if (forcedOracle().status !== 'available') return 'OracleUnavailable'
      for (const it of items) {
        if (it.type === 'cancel' || it.type === 'cancelAll') continue
        const m = state.markets.get(Number(it.market_id))
        if (!m) continue
        const view = creditView(state, acct, now(), faults.staleMarks, [
          { assetId: m.base_asset_id, pending: 1n },
          { assetId: m.quote_asset_id, pending: 1n },
        ])
        if (assetsMissingFreshMark(state, view, now(), faults.staleMarks).length > 0) return 'OracleMarkPriceMissing'
      }
    }
    if (a.type === 'order') {
      const m = state.markets.get(Number(a.market_id))
      if (!m) return null
      const req = toPlaceRequest(m, a)
      // zero price or size is a `tick` / `lotsize` leaf at execution, not a notional problem
      if (!req || req.price === 0n || req.qty === 0n) return null
      const quote = state.assets.get(m.quote_asset_id)
      if (quote?.min_quote_notional_atoms !== undefined && notional(state, m, req.price, req.qty) < quote.min_quote_notional_atoms) return 'MinTradeSpotNtl'
      if (acct.kind === 'balance') {
        const assetId = req.side === 'bid' ? m.quote_asset_id : m.base_asset_id
        const need = req.side === 'bid' ? notional(state, m, req.price, req.qty) : baseAtoms(state, m, req.qty)
        if ((acct.balances.get(assetId)?.available ?? 0n) < need) return 'InsufficientSpotBalance'
      }
      if (req.cloid) {
        const c = req.cloid.toLowerCase()
        for (const o of state.openByOwner.get(acct.address)?.values() ?? []) {
          if (o.marketId === m.market_id && o.cloid?.toLowerCase() === c) return 'DuplicateCloid'
        }
      }
    }
    return null
  }

  function toPlaceRequest(m: MarketConfig, o: Replacement | (Replacement & { market_id: string })): PlaceRequest | null {
    try {
      return {
        side: o.side === 'bid' || o.side === 'buy' ? 'bid' : 'ask',
        orderType: o.order_type,
        tif: o.tif,
        price: parseDecimal(o.price, m.price_decimals),
        qty: parseDecimal(o.quantity, m.base_quantity_decimals),
        cloid: o.cloid ?? null,
      }
    } catch {
      return null
    }
  }

  // ---------------- execution ----------------

  function execItem(ctx: BlockCtx, acct: Account, it: BatchItem): BatchItemResponse {
    const marketId = Number(it.market_id)
    const target = (x: { oid?: string | undefined; cloid?: string | undefined }) => ({ oid: x.oid === undefined ? undefined : Number(x.oid), cloid: x.cloid })
    switch (it.type) {
      case 'order': {
        const m = state.markets.get(marketId)
        if (!m) return { type: 'order', status: { error: 'marketnotfound' } }
        const req = toPlaceRequest(m, it)
        if (!req) return { type: 'order', status: { error: 'tick' } }
        return { type: 'order', status: placeOrder(ctx, acct, m, req) }
      }
      case 'cancel':
        return { type: 'cancel', status: cancelOrder(ctx, acct, marketId, target(it)) }
      case 'cancelAll':
        return { type: 'cancelAll', statuses: cancelAll(ctx, acct, marketId) }
      case 'modify': {
        const m = state.markets.get(marketId)
        if (!m) return { type: 'modify', status: { error: 'marketnotfound' } }
        const req = toPlaceRequest(m, it.replacement)
        if (!req) return { type: 'modify', status: { error: 'tick' } }
        return { type: 'modify', status: modifyOrder(ctx, acct, marketId, target(it), req) }
      }
    }
  }

  function execute(ctx: BlockCtx, tx: PendingTx, txIndex: number): ExecResult {
    const p = tx.parsed
    if (p.expiresAfterMs !== undefined && BigInt(ctx.timeMs) > p.expiresAfterMs) return { submission: 'rejected', code: 'ExpiredTx' }
    if (nonceProblem(tx.authority, p.nonce, ctx.timeMs)) return { submission: 'rejected', code: 'BadNonce' }
    if (p.agentEpoch !== undefined) {
      // the slot may have been revoked or re-approved since admission
      const slot = state.agentIndex.get(tx.authority)
      if (!slot || slot.owner !== tx.owner) return { submission: 'rejected', code: 'UnknownAgent' }
      if (state.accounts.get(slot.owner)!.agents[slot.slot]!.epoch !== p.agentEpoch) return { submission: 'rejected', code: 'AgentEpochMismatch' }
    }
    consumeNonce(tx.authority, p.nonce)
    const acct = state.accounts.get(tx.owner)
    const a = p.action
    let result: ExecResult
    let status = 'success'
    if (tx.forced?.kind === 'envelope') {
      // injected envelope-level execution failure: included, nothing applied
      result = { submission: 'rejected', code: tx.forced.code }
      status = tx.forced.code.toLowerCase()
    } else if (tx.forced?.kind === 'failed') {
      // injected failure with no single code: included, nothing applied
      result = { submission: 'accepted', response: failedResponse(a) }
      status = 'failed'
    } else if (a.type === 'order' || a.type === 'cancel' || a.type === 'cancelAll' || a.type === 'modify' || a.type === 'batch') {
      if (!acct) {
        result = { submission: 'rejected', code: 'AccountNotFound' }
        status = 'accountnotfound'
      } else if (a.type === 'batch') {
        result = { submission: 'accepted', response: { type: 'batch', statuses: a.items.map((it) => execItem(ctx, acct, it)) } }
      } else {
        result = { submission: 'accepted', response: execItem(ctx, acct, a) as TradeResponseBody }
      }
    } else {
      const code = checkOwnerAction({ state, signer: tx.owner, nowMs: ctx.timeMs, staleMarks: faults.staleMarks, feeAccount, pendingWithdrawNonces: new Set() }, a as Eip712Action)
      if (code) {
        status = code.toLowerCase()
        result = { submission: 'accepted', response: { type: 'default', status: { error: status } } }
      } else {
        applyOwnerAction(ctx, tx.owner, a as Eip712Action, { txHash: p.txHash, txIndex })
        result = { submission: 'accepted', response: { type: 'default' } }
      }
    }
    const rec: TxRecord = {
      txHash: p.txHash,
      height: ctx.height,
      txIndex,
      authority: tx.authority,
      owner: tx.owner,
      actionType: a.type,
      nonce: p.nonce.toString(),
      cloids: cloidsOf(p),
      status,
    }
    state.executed.push(rec)
    // ground truth for tests: bounded so a session of hours does not grow without limit
    if (state.executed.length > 50_000) state.executed.splice(0, 25_000)
    for (const c of rec.cloids) state.txByCloid.set(`${tx.authority}:${c}`, rec)
    return result
  }

  /** Accounts credited by the faucet since the last block (pushed as touched in the next one). */
  const depositedSinceLastBlock = new Set<Address>()

  function emptyEvents(height: number, timeMs: number): BlockEvents {
    return { height, timeMs, trades: [], orderUpdates: [], fills: [], transfers: [], touchedMarkets: new Set(), touchedUsers: new Set() }
  }

  function produceBlock(): BlockEvents {
    const txs = queue
    queue = []
    const height = state.height + 1
    const timeMs = Math.max(now(), state.timeMs)
    state.height = height
    state.timeMs = timeMs
    const events = emptyEvents(height, timeMs)
    // Faucet deposits land in this block, like a bridge deposit would: their accounts are touched.
    for (const a of depositedSinceLastBlock) events.touchedUsers.add(a)
    depositedSinceLastBlock.clear()
    const ctx: BlockCtx = { state, height, timeMs, staleMarks: faults.staleMarks, events, feeAccount, feesActive: !faults.feesInactive, vaultPayouts: !faults.vaultPayoutsInactive }
    const results: [PendingTx, ExecResult][] = []
    txs.forEach((tx, i) => {
      pendingNonces.get(tx.authority)?.delete(tx.parsed.nonce)
      if (tx.parsed.action.type === 'withdraw') pendingWithdrawNonces.delete(`${tx.owner}:${tx.parsed.action.withdraw_nonce}`)
      let r: ExecResult
      try {
        r = execute(ctx, tx, i)
      } catch {
        r = { submission: 'rejected', code: 'MalformedTx' }
      }
      results.push([tx, r])
    })
    state.appHash = keccak256(concat([state.appHash, numberToHex(height, { size: 8 }), ...txs.map((t) => t.parsed.txHash)]))
    if (height % 1000 === 0) prune()
    for (const l of listeners) {
      try {
        l(events)
      } catch {
        // a listener's failure must not stop the chain
      }
    }
    for (const [tx, r] of results) tx.settle(r)
    return events
  }

  /** Drops terminal status records older than the retained window, and expired withdraw nonces. */
  function prune(): void {
    const floor = state.earliestRetainedHeight(RETAINED_BLOCKS)
    for (const [oid, rec] of state.statusByOid) {
      if (rec.height < floor && rec.order.remaining === 0n) state.statusByOid.delete(oid)
    }
    for (const [k, tx] of state.txByCloid) if (tx.height < floor) state.txByCloid.delete(k)
    pruneWithdrawNonces(state, state.timeMs)
  }

  // ---------------- /trade ----------------

  async function handleTrade(rawBody: string, headers: Record<string, string | undefined>, ip: string): Promise<HttpResult> {
    const traceId = traceIdOf(headers)
    if (Buffer.byteLength(rawBody, 'utf8') > MAX_TRADE_BODY_BYTES) return rejected(traceId, 'RequestTooLarge', undefined, 413)
    if (fires(faults.rateLimited)) return rejected(traceId, 'RateLimited', undefined, 429, faults.rateLimited?.retryAfterMs ?? 1000)
    const ipWait = tradeBuckets?.take(ip) ?? 0
    if (ipWait > 0) return rejected(traceId, 'RateLimited', undefined, 429, ipWait)

    let p: ParsedEnvelope
    try {
      p = parseEnvelope(rawBody, state, chainId)
    } catch (e) {
      if (e instanceof ShapeError) return rejected(traceId, e.code, undefined, 400)
      const code = errorCode(e)
      if (code !== null) return rejected(traceId, code === 'EncodeLengthOverflow' ? code : 'MalformedTx', undefined, 400)
      throw e
    }
    const txHash = p.txHash

    let authority: Address
    try {
      authority = await recover(p, chainId)
    } catch {
      return rejected(traceId, 'BadSignature', txHash)
    }
    const signerWait = signerWindow?.take(authority) ?? 0
    if (signerWait > 0) return rejected(traceId, 'RateLimited', txHash, 429, signerWait)
    if (p.expiresAfterMs !== undefined && BigInt(now()) > p.expiresAfterMs) return rejected(traceId, 'ExpiredTx', txHash)

    let owner: Address
    if (p.agentEpoch !== undefined) {
      const slot = state.agentIndex.get(authority)
      if (!slot) return rejected(traceId, (await signedForOtherChain(p)) ? 'WrongChainId' : 'UnknownAgent', txHash)
      const epoch = state.accounts.get(slot.owner)!.agents[slot.slot]!.epoch
      if (epoch !== p.agentEpoch) return rejected(traceId, 'AgentEpochMismatch', txHash)
      owner = slot.owner
    } else {
      if (state.agentIndex.has(authority)) return rejected(traceId, 'DirectSignerIsActiveAgent', txHash)
      owner = authority
    }
    if (!known(authority) && (await signedForOtherChain(p))) return rejected(traceId, 'WrongChainId', txHash)

    if (nonceProblem(authority, p.nonce, now()) || pendingNonces.get(authority)?.has(p.nonce)) return rejected(traceId, 'BadNonce', txHash)

    const a = p.action
    if (faults.placeOrderSuspended) {
      const cancelOnly = a.type === 'cancel' || a.type === 'cancelAll' || (a.type === 'batch' && a.items.length > 0 && a.items.every(isCancelOnly))
      if (!cancelOnly && (a.type === 'order' || a.type === 'modify' || a.type === 'batch')) return rejected(traceId, 'PlaceOrderSuspended', txHash, 503, 1000)
    }

    if (a.type === 'order' || a.type === 'cancel' || a.type === 'cancelAll' || a.type === 'modify' || a.type === 'batch') {
      const acct = state.accounts.get(owner)
      if (!acct) return rejected(traceId, 'AccountNotFound', txHash)
      const code = accountAdmission(acct, p)
      if (code) return rejected(traceId, code, txHash)
    } else {
      const code = checkOwnerAction({ state, signer: owner, nowMs: now(), staleMarks: faults.staleMarks, feeAccount, pendingWithdrawNonces }, a)
      if (code) return rejected(traceId, code, txHash)
    }

    if (fires(faults.queryLagBackpressure ?? null)) return rejected(traceId, 'QueryLagBackpressure', txHash, 503)
    if (queue.length >= maxPending) return rejected(traceId, 'TooManyPending', txHash, 503, 50)
    if (fires(faults.unavailable503)) return reply(503, { submission_status: 'timeout', tx_hash: txHash, error: { code: 'Unavailable', retry_after_ms: 500 } }, traceId)
    if (faults.nodeUnreachable504 && fires(faults.nodeUnreachable504)) {
      const executed = faults.nodeUnreachable504?.executed ?? false
      if (executed) await enqueue(p, authority, owner)
      return reply(504, { submission_status: 'timeout', tx_hash: txHash, error: { code: 'NodeUnreachable' } }, traceId)
    }
    if (faults.tradeTimeout && fires(faults.tradeTimeout)) {
      const executed = faults.tradeTimeout?.executed ?? false
      if (executed) void enqueue(p, authority, owner)
      await new Promise((r) => setTimeout(r, waitBudgetMs))
      return reply(200, { submission_status: 'timeout', tx_hash: txHash }, traceId)
    }

    const outcome = enqueue(p, authority, owner)
    let timeoutHandle: ReturnType<typeof setTimeout> | undefined
    const budget = new Promise<null>((r) => {
      timeoutHandle = setTimeout(() => r(null), waitBudgetMs)
    })
    const r = await Promise.race([outcome, budget])
    clearTimeout(timeoutHandle)
    if (r === null) return reply(200, { submission_status: 'timeout', tx_hash: txHash }, traceId)
    return resultReply(r, txHash, traceId)
  }

  function enqueue(p: ParsedEnvelope, authority: Address, owner: Address): Promise<ExecResult> {
    let set = pendingNonces.get(authority)
    if (!set) {
      set = new Set()
      pendingNonces.set(authority, set)
    }
    set.add(p.nonce)
    if (p.action.type === 'withdraw') pendingWithdrawNonces.add(`${owner}:${p.action.withdraw_nonce}`)
    const forced = forcedFailureFor(p)
    return new Promise<ExecResult>((settle) => queue.push({ parsed: p, authority, owner, settle, forced }))
  }

  // ---------------- /info ----------------

  async function handleInfo(body: unknown, ip: string): Promise<HttpResult> {
    if (fires(faults.rateLimited)) {
      const ms = faults.rateLimited?.retryAfterMs ?? 1000
      return infoError(429, 'RateLimited', `Rate limited, retry after ${ms}ms`)
    }
    const wait = infoBuckets?.take(ip) ?? 0
    if (wait > 0) return infoError(429, 'RateLimited', `Rate limited, retry after ${wait}ms`)
    return dispatchInfo({ state, nowMs: state.timeMs || now(), staleMarks: faults.staleMarks, oracle: oracle() }, body)
  }

  // ---------------- admin ----------------

  function deposit(address: Address, assetId: number, atoms: bigint): void {
    const a = address.toLowerCase() as Address
    if (!state.assets.has(assetId)) throw new SandboxError('InvalidAssetId', `unknown asset ${assetId}`)
    if (atoms <= 0n) throw new SandboxError('InvalidAmount', 'deposit must be positive')
    let acct = state.accounts.get(a)
    let fee = 0n
    if (!acct) {
      if (state.agentIndex.has(a)) throw new SandboxError('AddressIsAgent', `${a} is an active agent and cannot hold an account`)
      if (!ACTIVATION_FEE_ASSETS.includes(assetId) || atoms <= ACTIVATION_FEE_ATOMS) {
        throw new SandboxError('InsufficientActivationDeposit', `a first deposit must be in asset ${ACTIVATION_FEE_ASSETS.join(' or ')} and exceed the 1.0 activation fee`)
      }
      acct = state.createAccount(a, 'balance')
      fee = ACTIVATION_FEE_ATOMS
      state.balance(state.accounts.get(feeAccount)!, assetId).available += fee
    }
    if (acct.kind === 'credit') throw new SandboxError('ActionNotAllowedForSpotCreditAccount', 'credit accounts hold no balances')
    state.balance(acct, assetId).available += atoms - fee
    let list = state.deposits.get(a)
    if (!list) {
      list = []
      state.deposits.set(a, list)
    }
    list.push({ deposit_id: state.nextDepositId++, asset_id: assetId, amount_atoms: atoms, fee_atoms: fee, src_chain_id: 1, block_height: state.height, time_ms: state.timeMs || now() })
    depositedSinceLastBlock.add(a)
  }

  function creditAccount(address: Address): Account {
    const acct = state.accounts.get(address.toLowerCase() as Address)
    if (!acct || acct.kind !== 'credit') throw new SandboxError('InvalidMarginAccount', `${address} is not a credit account`)
    return acct
  }

  const service: TradingService = {
    chainId,
    faults,
    feeAccount,
    handleInfo,
    handleTrade,
    onBlock(listener) {
      listeners.add(listener)
      return () => listeners.delete(listener)
    },
    marketExists: (id) => wsL2Book(state, id, 0) !== null,
    l2Book: (id, depth = 10) => wsL2Book(state, id, depth),
    bbo: (id) => wsBbo(state, id),
    allMids: () => wsAllMids(state),
    openOrders: (u) => wsOpenOrders(state, u),
    spotState: (u) => wsSpotState(state, u),
    spotCreditState: (u) => wsSpotCreditState(state, u, state.timeMs || now(), faults.staleMarks),
    recentFills: (u, n) => wsRecentFills(state, u, n),
    head: () => ({ height: state.height, timeMs: state.timeMs }),
    marks: () => [...state.marks].sort((x, y) => x[0] - y[0]).map(([assetId, m]) => ({ assetId, usdAtoms: m.usdAtoms, sourceTsMs: m.sourceTsMs })),
    oracleStatus: () => oracle(),
    deposit,
    createCreditAccount(address, creditUsdAtoms, o) {
      const a = address.toLowerCase() as Address
      if (state.accounts.has(a)) throw new SandboxError('AccountAlreadyActivated', `${a} already has an account`)
      const acct = state.createAccount(a, 'credit')
      acct.credit!.creditUsdAtoms = creditUsdAtoms
      acct.credit!.whitelist = [...(o?.whitelistedMarketIds ?? [])]
    },
    setCreditPosition(address, assetId, actualQty) {
      creditAccount(address).credit!.positions.set(assetId, actualQty)
    },
    setMark(assetId, usdAtoms, sourceTsMs) {
      if (usdAtoms <= 0n) throw new SandboxError('InvalidPrice', 'a mark must be positive')
      state.marks.set(assetId, { usdAtoms, sourceTsMs: sourceTsMs ?? now() })
    },
    setOracle(s) {
      state.oracle = s
    },
    freeze(address) {
      const acct = state.accounts.get(address.toLowerCase() as Address)
      if (!acct) throw new SandboxError('AccountNotFound', `${address} has no account`)
      acct.status = 'frozen'
    },
    unfreeze(address) {
      const acct = state.accounts.get(address.toLowerCase() as Address)
      if (!acct) throw new SandboxError('AccountNotFound', `${address} has no account`)
      acct.status = 'active'
    },
    listAssets: () => [...state.assets.values()].sort((a, b) => a.asset_id - b.asset_id),
    addAsset(a: AssetConfig) {
      state.addAsset(a)
    },
    listMarkets: () => [...state.markets.values()].sort((a, b) => a.market_id - b.market_id),
    addMarket,
    balances(address) {
      const acct = state.accounts.get(address.toLowerCase() as Address)
      return acct ? [...acct.balances].sort((x, y) => x[0] - y[0]).map(([assetId, b]) => ({ assetId, available: b.available, locked: b.locked })) : []
    },
    groundTruth: () =>
      state.executed.map((t) => ({ txHash: t.txHash, height: t.height, txIndex: t.txIndex, authority: t.authority, owner: t.owner, actionType: t.actionType, nonce: t.nonce, cloid: t.cloids[0] ?? null, status: t.status })),
    snapshot: () => snapshotState(state),
    restore(snap) {
      if (queue.length > 0) throw new SandboxError('RestoreWhileBusy', 'cannot restore while transactions are pending')
      restoreState(state, snap)
      if (!state.accounts.has(feeAccount)) state.createAccount(feeAccount, 'balance')
    },
    pendingCount: () => queue.length,
    produceBlock,
    advanceBlocks(count) {
      if (!Number.isSafeInteger(count) || count < 1 || count > 1_000_000_000) throw new SandboxError('InvalidBlockCount', 'count must be an integer from 1 to 1e9')
      produceBlock()
      if (count > 1) {
        // Empty heights: no transactions, no events; the block time stays (marks and nonces keep their meaning).
        state.height += count - 1
        prune()
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
      if (queue.length > 0) produceBlock()
    },
  }
  return service
}
