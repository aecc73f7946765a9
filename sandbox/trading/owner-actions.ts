import type { Address } from 'viem'
import type { Eip712Action } from '../../main/core/wire/actions'
import { ACTIVATION_FEE_ASSETS, ACTIVATION_FEE_ATOMS, WITHDRAW_CHAINS, WITHDRAW_VAULT } from './defaults'
import type { BlockCtx } from './matching'
import type { Account, ChainState } from './state'
import { assetsMissingFreshMark, creditView } from './valuation'

/**
 * The eip712 owner actions. Each has a check (run at admission against committed state,
 * and again at execution) returning the spec's CamelCase error code, and an apply.
 */

export const ZERO_ADDRESS = '0x0000000000000000000000000000000000000000'
export const WITHDRAW_NONCE_RETENTION_MS = 3 * 24 * 3600 * 1000

export interface OwnerEnv {
  state: ChainState
  signer: Address
  nowMs: number
  staleMarks: boolean
  feeAccount: Address
  /** withdraw business nonces waiting in the pending queue (the pending overlay) */
  pendingWithdrawNonces: Set<string>
}

function acctOf(state: ChainState, a: Address): Account | undefined {
  return state.accounts.get(a.toLowerCase() as Address)
}

function available(state: ChainState, acct: Account, assetId: number): bigint {
  return acct.balances.get(assetId)?.available ?? 0n
}

export function withdrawNonceTaken(state: ChainState, owner: Address, nonce: bigint): boolean {
  const w = state.withdrawNonces.get(owner)
  if (!w) return false
  return nonce <= w.floor || w.retained.has(nonce)
}

export function checkOwnerAction(env: OwnerEnv, a: Eip712Action): string | null {
  const { state, signer } = env
  const me = acctOf(state, signer)
  switch (a.type) {
    case 'transfer': {
      const amount = BigInt(a.amount)
      if (a.to.toLowerCase() === ZERO_ADDRESS || amount === 0n) return 'InvalidTransfer'
      if (a.to.toLowerCase() === signer) return 'TransferToSelf'
      if (!me) return 'AccountNotFound'
      if (me.kind === 'credit') return 'ActionNotAllowedForSpotCreditAccount'
      const to = acctOf(state, a.to as Address)
      if (!to) return 'AccountNotFound'
      if (to.kind === 'credit') return 'ActionNotAllowedForSpotCreditAccount'
      if (!state.assets.has(Number(a.asset_id))) return 'InvalidAssetId'
      if (available(state, me, Number(a.asset_id)) < amount) return 'InsufficientSpotBalance'
      return null
    }
    case 'activateFor': {
      const assetId = Number(a.asset_id)
      if (!ACTIVATION_FEE_ASSETS.includes(assetId)) return 'InvalidActivationFeeAsset'
      if (!me) return 'AccountNotFound'
      if (me.kind === 'credit') return 'ActionNotAllowedForSpotCreditAccount'
      const target = a.target_address.toLowerCase() as Address
      if (target === ZERO_ADDRESS || signer === env.feeAccount) return 'InvalidAccountActivation'
      if (state.accounts.has(target)) return 'AccountAlreadyActivated'
      if (state.agentIndex.has(target)) return 'AddressIsAgent'
      if (available(state, me, assetId) < ACTIVATION_FEE_ATOMS) return 'InsufficientSpotBalance'
      return null
    }
    case 'withdraw': {
      if (!me) return 'AccountNotFound'
      if (me.kind === 'credit') return 'ActionNotAllowedForSpotCreditAccount'
      const asset = state.assets.get(Number(a.asset_id))
      if (!asset) return 'InvalidAssetId'
      if (!WITHDRAW_CHAINS.includes(Number(a.dst_chain_id))) return 'InvalidWithdrawDestination'
      const amount = BigInt(a.amount)
      if (amount <= asset.withdraw_fee_atoms || amount < (asset.min_withdraw_atoms ?? 0n)) return 'WithdrawAmountTooSmall'
      const wn = BigInt(a.withdraw_nonce)
      if (withdrawNonceTaken(state, signer, wn) || env.pendingWithdrawNonces.has(`${signer}:${wn}`)) return 'WithdrawDuplicateNonce'
      if (available(state, me, asset.asset_id) < amount) return 'InsufficientSpotBalance'
      return null
    }
    case 'settle': {
      if (!me || me.kind !== 'credit') return 'InvalidSettle'
      if (me.status === 'frozen') return 'SpotCreditAccountFrozen'
      const cash = acctOf(state, a.cash_account as Address)
      if (!cash || cash.kind !== 'balance') return 'InvalidSettle'
      const assetId = Number(a.asset_id)
      if (!state.assets.has(assetId)) return 'InvalidAssetId'
      const amount = BigInt(a.amount)
      if (amount === 0n) return 'InvalidSettle'
      const view = creditView(state, me, env.nowMs, env.staleMarks)
      const p = view.positions.get(assetId)
      const settleable = p ? p.actual + p.pending : 0n
      if (!p || p.actual <= 0n || settleable <= 0n || amount > settleable) return 'InvalidSettle'
      const after = creditView(state, me, env.nowMs, env.staleMarks, [{ assetId, actual: -amount }])
      if (assetsMissingFreshMark(state, after, env.nowMs, env.staleMarks).length > 0) return 'OracleMarkPriceMissing'
      if (after.available === null || after.available < 0n) return 'InsufficientSpotCredit'
      return null
    }
    case 'repay': {
      if (!me || me.kind !== 'balance') return 'InvalidRepay'
      const margin = acctOf(state, a.margin_account as Address)
      if (!margin || margin.kind !== 'credit') return 'InvalidRepay'
      const assetId = Number(a.asset_id)
      if (!state.assets.has(assetId)) return 'InvalidAssetId'
      const amount = BigInt(a.amount)
      if (amount === 0n) return 'InvalidRepay'
      const pos = margin.credit!.positions.get(assetId) ?? 0n
      if (pos >= 0n || amount > -pos) return 'InvalidRepay'
      if (available(state, me, assetId) < amount) return 'InsufficientSpotBalance'
      return null
    }
    case 'approveAgent': {
      if (!me) return 'AccountNotFound'
      const agent = a.agent.toLowerCase() as Address
      if (agent === ZERO_ADDRESS || agent === signer || state.accounts.has(agent)) return 'InvalidAgent'
      const bound = state.agentIndex.get(agent)
      if (bound && !(bound.owner === signer && bound.slot === a.slot_id)) return 'InvalidAgent'
      return null
    }
    case 'revokeAgent':
      if (!me) return 'AccountNotFound'
      if (!me.agents[a.slot_id]) return 'InvalidAgentSlot'
      return null
  }
}

/** Applies a checked owner action inside a block. */
export function applyOwnerAction(ctx: BlockCtx, signer: Address, a: Eip712Action, tx: { txHash: `0x${string}`; txIndex: number }): void {
  const s = ctx.state
  const me = s.accounts.get(signer)!
  ctx.events.touchedUsers.add(signer)
  switch (a.type) {
    case 'transfer': {
      const to = s.accounts.get(a.to.toLowerCase() as Address)!
      const assetId = Number(a.asset_id)
      const amount = BigInt(a.amount)
      s.balance(me, assetId).available -= amount
      s.balance(to, assetId).available += amount
      ctx.events.touchedUsers.add(to.address)
      ctx.events.transfers.push({
        from: signer,
        to: to.address,
        assetId,
        atoms: amount,
        height: ctx.height,
        txIndex: tx.txIndex,
        eventIndex: 0,
        txHash: tx.txHash,
        timeMs: ctx.timeMs,
      })
      return
    }
    case 'activateFor': {
      const assetId = Number(a.asset_id)
      s.balance(me, assetId).available -= ACTIVATION_FEE_ATOMS
      const fee = s.accounts.get(ctx.feeAccount) ?? s.createAccount(ctx.feeAccount, 'balance')
      s.balance(fee, assetId).available += ACTIVATION_FEE_ATOMS
      const target = s.createAccount(a.target_address.toLowerCase() as Address, 'balance')
      ctx.events.touchedUsers.add(target.address)
      return
    }
    case 'withdraw': {
      const assetId = Number(a.asset_id)
      const amount = BigInt(a.amount)
      const asset = s.assets.get(assetId)!
      s.balance(me, assetId).available -= amount
      const wn = BigInt(a.withdraw_nonce)
      let w = s.withdrawNonces.get(signer)
      if (!w) {
        w = { retained: new Map(), floor: 0n }
        s.withdrawNonces.set(signer, w)
      }
      w.retained.set(wn, ctx.timeMs)
      let list = s.withdraws.get(signer)
      if (!list) {
        list = []
        s.withdraws.set(signer, list)
      }
      list.push({
        user: signer,
        asset_id: assetId,
        amount_atoms: amount,
        dst_chain_id: a.dst_chain_id,
        dst_address: a.dst_address.toLowerCase() as Address,
        withdraw_nonce: wn,
        withdraw_fee_atoms: asset.withdraw_fee_atoms,
        vault_address: ctx.vaultPayouts === false ? null : WITHDRAW_VAULT,
        cloid: a.cloid,
        tx_hash: tx.txHash,
        block_height: ctx.height,
        tx_index: tx.txIndex,
        time_ms: ctx.timeMs,
      })
      return
    }
    case 'settle': {
      const assetId = Number(a.asset_id)
      const amount = BigInt(a.amount)
      const pos = me.credit!.positions
      pos.set(assetId, (pos.get(assetId) ?? 0n) - amount)
      const cash = s.accounts.get(a.cash_account.toLowerCase() as Address)!
      s.balance(cash, assetId).available += amount
      ctx.events.touchedUsers.add(cash.address)
      return
    }
    case 'repay': {
      const assetId = Number(a.asset_id)
      const amount = BigInt(a.amount)
      s.balance(me, assetId).available -= amount
      const margin = s.accounts.get(a.margin_account.toLowerCase() as Address)!
      const pos = margin.credit!.positions
      pos.set(assetId, (pos.get(assetId) ?? 0n) + amount)
      ctx.events.touchedUsers.add(margin.address)
      return
    }
    case 'approveAgent': {
      const agent = a.agent.toLowerCase() as Address
      const prev = me.agents[a.slot_id]
      if (prev) s.agentIndex.delete(prev.agent)
      me.epochCounter += 1n
      me.agents[a.slot_id] = { agent, epoch: me.epochCounter }
      s.agentIndex.set(agent, { owner: signer, slot: a.slot_id })
      return
    }
    case 'revokeAgent': {
      const prev = me.agents[a.slot_id]
      if (prev) s.agentIndex.delete(prev.agent)
      me.epochCounter += 1n
      me.agents[a.slot_id] = null
      return
    }
  }
}

/** Prunes withdraw business nonces past the 3-day retention, raising the floor. */
export function pruneWithdrawNonces(state: ChainState, nowMs: number): void {
  for (const w of state.withdrawNonces.values()) {
    for (const [n, t] of w.retained) {
      if (nowMs - t > WITHDRAW_NONCE_RETENTION_MS) {
        w.retained.delete(n)
        if (n > w.floor) w.floor = n
      }
    }
  }
}
