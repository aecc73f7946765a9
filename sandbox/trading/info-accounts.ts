/** POST /info handlers for one account: balances, status, credit, agents, deposits and withdrawals. */
import { OWNER_PARAM } from '../../main/core/wire/assumptions'
import { fmtAsset } from './format'
import { ok, user, type InfoHandlers } from './info-params'
import { WITHDRAW_NONCE_RETENTION_MS } from './owner-actions'
import { creditPositions } from './snapshots'
import { creditView } from './valuation'

/** What one account holds and may do. */
export const accountHandlers: InfoHandlers = {
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

  userAgents: ({ state }, b) => {
    const u = user(b[OWNER_PARAM], OWNER_PARAM)
    const acct = state.accounts.get(u)
    const agents = [0, 1, 2, 3].map((slot) => {
      const a = acct?.agents[slot] ?? null
      return { slot_id: slot, agent: a?.agent ?? null, epoch: a ? a.epoch.toString() : null }
    })
    return ok({ user: u, agents })
  },
}
