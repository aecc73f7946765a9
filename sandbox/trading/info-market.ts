/** POST /info handlers for the chain's reference data: assets, markets, books, marks, the query window and the oracle. */
import { formatAtoms } from '../../main/core/money/decimal'
import { DEPOSIT_CONTRACTS, RETAINED_BLOCKS, WITHDRAW_CHAINS } from './defaults'
import { fmtPrice, fmtQty } from './format'
import { InfoError, earliest, infoError, intParam, marketIdParam, ok, type InfoHandlers } from './info-params'

/** The only queryable multisig policy scope. */
const ACCOUNTING_SCOPE = 2
const ACCOUNTING_SCOPE_NAME = 'accounting'

/** Reference data, the same for every caller. */
export const marketHandlers: InfoHandlers = {
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
}
