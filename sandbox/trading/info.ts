import { OWNER_PARAM } from '../../main/core/wire/assumptions'
import type { Address } from 'viem'
import { formatAtoms } from '../../main/core/money/decimal'
import { DEPOSIT_CONTRACTS, RETAINED_BLOCKS, WITHDRAW_CHAINS } from './defaults'
import type { Order } from './book'
import { fmtAsset, fmtPrice, fmtQty } from './format'
import { creditPositions } from './snapshots'
import type { ChainState, FillRecord, OrderStatusRecord } from './state'
import type { HttpResult } from './types'
import { creditView } from './valuation'
import { WITHDRAW_NONCE_RETENTION_MS } from './owner-actions'

/** POST /info: dispatch by `type`, with the spec's parameter errors (400 vs in-band). */

/** The only queryable multisig policy scope. */
const ACCOUNTING_SCOPE = 2
const ACCOUNTING_SCOPE_NAME = 'accounting'

export interface InfoCtx {
  state: ChainState
  nowMs: number
  staleMarks: boolean
  oracle: { status: 'available' } | { status: 'unavailable'; reason_code: string }
}

type Obj = Record<string, unknown>

class InfoError extends Error {
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message)
  }
}

export function infoError(status: number, code: string, message: string): HttpResult {
  return { status, body: { error: { code, message } } }
}

const ok = (body: unknown): HttpResult => ({ status: 200, body })

function user(x: unknown, field = 'user'): Address {
  if (typeof x !== 'string' || !/^0x[0-9a-fA-F]{40}$/.test(x))
    throw new InfoError('InvalidInfoRequest', `${field} must be a 0x-prefixed 20-byte address`)
  return x.toLowerCase() as Address
}

/** Non-negative integer given as a JSON number or a decimal string; null when malformed. */
function intParam(x: unknown, max = Number.MAX_SAFE_INTEGER): number | null {
  if (typeof x === 'number' && Number.isSafeInteger(x) && x >= 0 && x <= max) return x
  if (typeof x === 'string' && /^(0|[1-9][0-9]*)$/.test(x) && Number(x) <= max) return Number(x)
  return null
}

function marketIdParam(x: unknown, allowAll = false): number {
  if (allowAll && (x === -1 || x === '-1')) return -1
  const id = intParam(x, 0xffffffff)
  if (id === null) throw new InfoError('InvalidMarketId', 'market_id must be an integer market id')
  return id
}

function cloidParam(x: unknown): string {
  if (typeof x !== 'string' || !/^0x[0-9a-fA-F]{32}$/.test(x)) throw new InfoError('InvalidCloid', 'cloid must be 0x + 16 bytes hex')
  return x.toLowerCase()
}

function earliest(state: ChainState): number {
  return state.earliestRetainedHeight(RETAINED_BLOCKS)
}

function httpFill(state: ChainState, f: FillRecord) {
  return {
    tid: f.tid,
    time: f.timeMs,
    block_height: f.height,
    market_id: f.marketId,
    // the taker order's record ages out with the retained window, and with it the direction
    side: f.height >= earliest(state) ? f.side : null,
    px: fmtPrice(state, f.marketId, f.price),
    sz: fmtQty(state, f.marketId, f.qty),
    oid: f.oid,
    cloid: f.cloid,
    crossed: f.crossed,
    fee_asset_id: f.feeAssetId,
    fee: fmtAsset(state, f.feeAssetId, f.fee),
    fee_mode: f.feeMode,
  }
}

function openOrderEntry(state: ChainState, o: Order, withMarket: boolean) {
  const base = {
    oid: o.oid,
    cloid: o.cloid,
    side: o.side,
    price: fmtPrice(state, o.marketId, o.price),
    original_qty: fmtQty(state, o.marketId, o.origQty),
    filled_qty: fmtQty(state, o.marketId, o.filled),
    remaining_qty: fmtQty(state, o.marketId, o.remaining),
    owner_index: o.ownerIndex,
    timestamp_ms: o.timestampMs,
  }
  return withMarket ? { market_id: o.marketId, ...base } : base
}

function orderStatusBody(state: ChainState, o: Order, status: string, timeMs: number) {
  return {
    found: true,
    status,
    oid: o.oid,
    cloid: o.cloid,
    user: o.owner,
    owner_index: o.ownerIndex,
    market_id: o.marketId,
    side: o.side,
    tif: o.tif,
    order_type: o.orderType,
    price: fmtPrice(state, o.marketId, o.price),
    original_qty: fmtQty(state, o.marketId, o.origQty),
    filled_qty: fmtQty(state, o.marketId, o.filled),
    remaining_qty: fmtQty(state, o.marketId, o.remaining),
    status_timestamp_ms: timeMs,
  }
}

function lookupOrder(state: ChainState, oid: number) {
  for (const book of state.books.values()) {
    const o = book.byOid.get(oid)
    if (o)
      return orderStatusBody(
        state,
        o,
        o.filled > 0n ? 'partiallyfilledresting' : 'open',
        state.statusByOid.get(oid)?.timeMs ?? o.timestampMs,
      )
  }
  const rec: OrderStatusRecord | undefined = state.statusByOid.get(oid)
  if (rec && rec.height >= earliest(state)) return orderStatusBody(state, rec.order, rec.status, rec.timeMs)
  return { found: false, status: null }
}

const handlers: Record<string, (ctx: InfoCtx, b: Obj) => HttpResult> = {
  assets: ({ state }) =>
    ok({
      query_height: state.height,
      app_hash: state.appHash,
      assets: [...state.assets.values()]
        .sort((a, b) => a.asset_id - b.asset_id)
        .map((a) => ({
          asset_id: a.asset_id,
          symbol: a.symbol,
          balance_decimals: a.balance_decimals,
          withdraw_fee: formatAtoms(a.withdraw_fee_atoms, a.balance_decimals),
          withdraw_fee_atoms: a.withdraw_fee_atoms.toString(),
          issuer: '0x0000000000000000000000000000000000000000',
          credit_ltv: a.credit_ltv,
          credit_ltv_setting: null,
        })),
    }),

  queryStatus: ({ state }) => {
    if (state.height === 0) {
      return ok({
        query_height: null,
        query_time_ms: null,
        app_hash: null,
        earliest_retained_height: null,
        latest_retained_height: null,
        retained_window_blocks: null,
      })
    }
    return ok({
      query_height: state.height,
      query_time_ms: state.timeMs,
      app_hash: state.appHash,
      earliest_retained_height: earliest(state),
      latest_retained_height: state.height,
      retained_window_blocks: RETAINED_BLOCKS,
    })
  },

  quoteAssets: ({ state }) =>
    ok({
      quote_assets: [...state.assets.values()]
        .filter((a) => a.min_quote_notional_atoms !== undefined)
        .sort((a, b) => a.asset_id - b.asset_id)
        .map((a) => ({
          asset_id: a.asset_id,
          symbol: a.symbol,
          min_quantity: formatAtoms(a.min_quote_notional_atoms!, a.balance_decimals),
          min_quantity_atoms: a.min_quote_notional_atoms!.toString(),
        })),
    }),

  accountingWithdrawTokens: ({ state }) => {
    const rows = []
    for (const chain of [...WITHDRAW_CHAINS].sort((a, b) => a - b)) {
      for (const a of [...state.assets.values()].sort((x, y) => x.asset_id - y.asset_id)) {
        const min = a.min_withdraw_atoms ?? 0n
        rows.push({
          chain_id: chain,
          asset_id: a.asset_id,
          symbol: a.symbol,
          min_withdraw_atoms: min.toString(),
          min_withdraw_amt: formatAtoms(min, a.balance_decimals),
        })
      }
    }
    return ok({ withdraw_tokens: rows })
  },

  accountingDepositContracts: () => ok({ deposit_contracts: [...DEPOSIT_CONTRACTS].sort((a, b) => a.src_chain_id - b.src_chain_id) }),

  multisigPolicy: (_ctx, b) => {
    if (b.scope !== ACCOUNTING_SCOPE && b.scope !== String(ACCOUNTING_SCOPE)) {
      return infoError(400, 'InvalidMultisigScope', `only the accounting scope (${ACCOUNTING_SCOPE}) is queryable`)
    }
    return ok({ found: false, scope: ACCOUNTING_SCOPE, scope_name: ACCOUNTING_SCOPE_NAME })
  },

  markets: ({ state }) =>
    ok({
      markets: [...state.markets.values()]
        .sort((a, b) => a.market_id - b.market_id)
        .map((m) => ({
          market_id: m.market_id,
          base_asset_id: m.base_asset_id,
          quote_asset_id: m.quote_asset_id,
          price_decimals: m.price_decimals,
          max_price_sig_figs: m.max_price_sig_figs,
          base_quantity_decimals: m.base_quantity_decimals,
          quote_balance_decimals: state.assets.get(m.quote_asset_id)!.balance_decimals,
          maker_fee_milli_bps: m.maker_fee_milli_bps,
          taker_fee_milli_bps: m.taker_fee_milli_bps,
          fee_setting: null,
          credit_trading: m.credit_trading,
          credit_trading_setting: null,
        })),
    }),

  l2Book: ({ state }, b) => {
    const id = marketIdParam(b.market_id)
    let depth = 20
    if (b.depth !== undefined) {
      const d = intParam(b.depth)
      if (d === null || d === 0) throw new InfoError('InvalidInfoRequest', 'depth must be a positive integer')
      depth = Math.min(d, 100)
    }
    const book = state.books.get(id)
    if (!book || !state.markets.has(id)) return ok({ market_id: id, found: false, query_time_ms: state.timeMs })
    const lv = (side: 'bid' | 'ask') =>
      book
        .depth(side, depth)
        .map((l) => ({ price: fmtPrice(state, id, l.price), quantity: fmtQty(state, id, l.qty), order_count: l.count }))
    return ok({
      market_id: id,
      found: true,
      bids: lv('bid'),
      asks: lv('ask'),
      query_time_ms: state.timeMs,
      last_update_height: book.lastUpdateHeight,
      last_update_ts_ms: book.lastUpdateMs,
    })
  },

  withdraws: ({ state, nowMs }, b) => {
    const u = user(b.user)
    const list = (state.withdraws.get(u) ?? [])
      .filter((w) => nowMs - w.time_ms <= WITHDRAW_NONCE_RETENTION_MS)
      .sort((x, y) => x.block_height - y.block_height || x.tx_index - y.tx_index || (x.withdraw_nonce < y.withdraw_nonce ? -1 : 1))
    return ok({
      user: u,
      withdraws: list.map((w) => ({
        asset_id: w.asset_id,
        amount: fmtAsset(state, w.asset_id, w.amount_atoms),
        amount_atoms: w.amount_atoms.toString(),
        dst_chain_id: Number(w.dst_chain_id),
        dst_address: w.dst_address,
        withdraw_nonce: w.withdraw_nonce.toString(),
        withdraw_fee_atoms: w.withdraw_fee_atoms.toString(),
        vault_address: w.vault_address,
        cloid: w.cloid,
        tx_hash: w.tx_hash,
        block_height: w.block_height,
        tx_index: w.tx_index,
        time_ms: w.time_ms,
      })),
    })
  },

  deposits: ({ state }, b) => {
    const u = user(b.user)
    return ok({
      user: u,
      deposits: (state.deposits.get(u) ?? []).map((d) => ({
        deposit_id: d.deposit_id,
        asset_id: d.asset_id,
        amount: fmtAsset(state, d.asset_id, d.amount_atoms),
        amount_atoms: d.amount_atoms.toString(),
        activation_fee_atoms: d.fee_atoms.toString(),
        src_chain_id: d.src_chain_id,
        block_height: d.block_height,
        time_ms: d.time_ms,
      })),
    })
  },

  userBalances: ({ state }, b) => {
    const u = user(b[OWNER_PARAM], OWNER_PARAM)
    const acct = state.accounts.get(u)
    const balances =
      acct && acct.kind === 'balance'
        ? [...acct.balances]
            .sort((x, y) => x[0] - y[0])
            .map(([id, bal]) => ({
              asset_id: id,
              symbol: state.assets.get(id)?.symbol ?? String(id),
              available: fmtAsset(state, id, bal.available),
              locked: fmtAsset(state, id, bal.locked),
              available_atoms: bal.available.toString(),
              locked_atoms: bal.locked.toString(),
            }))
        : []
    return ok({ user: u, balances })
  },

  accountStatus: ({ state }, b) => {
    const u = user(b[OWNER_PARAM], OWNER_PARAM)
    const acct = state.accounts.get(u)
    return ok({
      user: u,
      found: !!acct,
      status: acct?.status ?? null,
      account_index: acct?.index ?? null,
      account_type: acct ? acct.kind : null,
    })
  },

  spotCreditAccount: ({ state, nowMs, staleMarks }, b) => {
    const u = user(b[OWNER_PARAM], OWNER_PARAM)
    const acct = state.accounts.get(u)
    if (!acct || acct.kind !== 'credit') return ok({ user: u, found: false })
    const view = creditView(state, acct, nowMs, staleMarks)
    return ok({
      user: u,
      found: true,
      status: acct.status,
      credit_usd_atoms: acct.credit!.creditUsdAtoms.toString(),
      available_usd_atoms: view.available?.toString() ?? null,
      last_known_available_usd_atoms: view.lastKnown?.toString() ?? null,
      credit_trading_whitelisted_market_ids: [...acct.credit!.whitelist],
    })
  },

  spotCreditPositions: ({ state, nowMs, staleMarks }, b) => {
    const u = user(b[OWNER_PARAM], OWNER_PARAM)
    return ok({ user: u, positions: creditPositions(state, u, nowMs, staleMarks) })
  },

  oracleStatus: ({ oracle }) => ok({ oracle_status: oracle }),

  markPrices: ({ state }, b) => {
    let ids: number[] | null = null
    if (b.asset_ids !== undefined) {
      if (!Array.isArray(b.asset_ids)) throw new InfoError('InvalidInfoRequest', 'asset_ids must be an array of asset ids')
      ids = b.asset_ids.map((x) => {
        const n = intParam(x)
        if (n === null) throw new InfoError('InvalidInfoRequest', 'asset_ids must hold integer asset ids')
        return n
      })
    }
    const marks = [...state.marks]
      .filter(([id]) => ids === null || ids.includes(id))
      .sort((x, y) => x[0] - y[0])
      .map(([id, m]) => ({ asset_id: id, usd_atoms: m.usdAtoms.toString(), source_ts_ms: m.sourceTsMs }))
    return ok({ marks })
  },

  openOrders: ({ state }, b) => {
    const u = user(b[OWNER_PARAM], OWNER_PARAM)
    const id = marketIdParam(b.market_id, true)
    const all = [...(state.openByOwner.get(u)?.values() ?? [])]
      .filter((o) => id === -1 || o.marketId === id)
      .sort((x, y) => x.marketId - y.marketId || x.oid - y.oid)
    const truncated = all.length > 500
    return ok({ user: u, market_id: id, orders: all.slice(0, 500).map((o) => openOrderEntry(state, o, id === -1)), truncated })
  },

  userAgents: ({ state }, b) => {
    const u = user(b[OWNER_PARAM], OWNER_PARAM)
    const acct = state.accounts.get(u)
    const agents = [0, 1, 2, 3].map((slot) => {
      const a = acct?.agents[slot] ?? null
      return { slot_id: slot, agent: a?.agent ?? null, epoch: a ? a.epoch.toString() : null }
    })
    return ok({ user: u, agents })
  },

  userFills: ({ state }, b) => {
    const u = user(b.user)
    const limitOk = (typeof b.limit === 'number' || typeof b.limit === 'string') && intParam(b.limit, 0xffffffff) !== null
    if (!limitOk) return infoError(400, 'InvalidFillsQuery', 'limit must be an integer from 1 to 500')
    const requested = intParam(b.limit, 0xffffffff)!
    const inBand = (code: string, message: string) => ok({ user: u, fills: [], error: { code, message } })
    if (requested === 0) return inBand('InvalidFillsQuery', 'limit must be positive')
    const to = b.to_height === undefined ? state.height : intParam(b.to_height)
    const from = b.from_height === undefined ? earliest(state) : intParam(b.from_height)
    if (to === null || from === null) return infoError(400, 'InvalidFillsQuery', 'from_height and to_height must be integers')
    if (from > to) return inBand('InvalidFillsQuery', 'from_height is above to_height')
    if (to - from + 1 > RETAINED_BLOCKS || from < earliest(state)) {
      return inBand(
        'HistoryWindowExceeded',
        `the window is the ${RETAINED_BLOCKS} most recent blocks (${earliest(state)}..${state.height})`,
      )
    }
    const limit = Math.min(requested, 500)
    const fills = (state.fills.get(u) ?? []).filter((f) => f.height >= from && f.height <= to).slice(0, limit)
    return ok({
      user: u,
      from_height: from,
      to_height: to,
      limit,
      requested_limit: requested,
      max_limit: 500,
      fills: fills.map((f) => httpFill(state, f)),
    })
  },

  userFillsByTime: ({ state }, b) => {
    const u = user(b.user)
    const start = intParam(b.start_time_ms)
    if (start === null) return infoError(400, 'InvalidFillsQuery', 'start_time_ms is required (integer milliseconds)')
    const end = b.end_time_ms === undefined ? state.timeMs : intParam(b.end_time_ms)
    if (end === null) return infoError(400, 'InvalidFillsQuery', 'end_time_ms must be integer milliseconds')
    if (start > end) return ok({ user: u, fills: [], error: { code: 'InvalidFillsQuery', message: 'start_time_ms is after end_time_ms' } })
    const fills = (state.fills.get(u) ?? []).filter((f) => f.timeMs >= start && f.timeMs <= end).slice(0, 1000)
    return ok({ user: u, fills: fills.map((f) => httpFill(state, f)) })
  },

  orderStatus: ({ state }, b) => {
    const oid = b.oid === undefined ? null : intParam(b.oid)
    if (oid !== null) return ok(lookupOrder(state, oid))
    if (b.user === undefined || b.market_id === undefined || b.cloid === undefined) {
      throw new InfoError('InvalidOrderStatusQuery', 'give a parseable oid, or user + market_id + cloid')
    }
    const u = user(b.user)
    const id = marketIdParam(b.market_id)
    const c = cloidParam(b.cloid)
    const found = state.oidByCloid.get(`${u}:${id}:${c}`)
    return ok(found === undefined ? { found: false, status: null } : lookupOrder(state, found))
  },

  txStatusByCloid: ({ state }, b) => {
    const u = user(b.user)
    if (b.cloid === undefined) throw new InfoError('InvalidInfoRequest', 'cloid is required')
    const c = cloidParam(b.cloid)
    const tx = state.txByCloid.get(`${u}:${c}`)
    if (!tx || tx.height < earliest(state)) return ok({ user: u, cloid: c, found: false, status: null, action_type: null })
    return ok({
      user: u,
      cloid: c,
      found: true,
      status: tx.status,
      action_type: tx.actionType,
      tx_hash: tx.txHash,
      block_height: tx.height,
      tx_index: tx.txIndex,
      nonce: tx.nonce,
    })
  },
}

export const MAX_INFO_BODY_BYTES = 64 * 1024

/** Parses (when given text) and dispatches one /info body. Rate limiting is the caller's. */
export function dispatchInfo(ctx: InfoCtx, body: unknown): HttpResult {
  let parsed: unknown = body
  if (typeof body === 'string') {
    if (Buffer.byteLength(body, 'utf8') > MAX_INFO_BODY_BYTES) return infoError(413, 'RequestTooLarge', 'request body is over 64 KiB')
    try {
      parsed = JSON.parse(body)
    } catch {
      return infoError(400, 'InvalidInfoRequest', 'body is not valid JSON')
    }
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed))
    return infoError(400, 'InvalidInfoRequest', 'body must be a JSON object')
  const b = parsed as Obj
  if (typeof b.type !== 'string') return infoError(400, 'InvalidInfoRequest', 'type must be a string')
  const h = Object.prototype.hasOwnProperty.call(handlers, b.type) ? handlers[b.type] : undefined
  if (!h) return infoError(400, 'UnsupportedInfoType', `unsupported info type "${b.type}"`)
  try {
    return h(ctx, b)
  } catch (e) {
    if (e instanceof InfoError) return infoError(400, e.code, e.message)
    throw e
  }
}
