/**
 * The amount a proposal moves, in the asset's units with its symbol (contract/format.ts), for the
 * proposal list and detail: read from the exact action (its `asset_id` and `amount` in atoms), the
 * units from this desk's session (the exchange's asset list; the earn pool's config for earn
 * requests, whose amounts are in the pool's decimals). Never raw atoms: an asset this desk cannot
 * name is said so.
 */
import { formatAmount, type AssetUnits } from '../../../contract/format'
import type { SessionSource } from '../../session'
import type { Proposal } from '../../team'

/** The kinds whose action names an asset and an amount in atoms. */
const MOVES_AMOUNT = new Set(['transfer', 'withdraw', 'settle', 'repay', 'earn_request'])

/** The asset and atoms the proposal's action moves; null when it moves no amount (orders, claims, agents...). */
export function movedAtoms(p: Proposal): { assetId: number; atoms: bigint; earn: boolean } | null {
  if (!MOVES_AMOUNT.has(p.kind)) return null
  const a = p.action as { asset_id?: unknown; amount?: unknown }
  const assetId =
    typeof a.asset_id === 'number' ? a.asset_id : typeof a.asset_id === 'string' && /^\d{1,9}$/.test(a.asset_id) ? Number(a.asset_id) : null
  if (assetId === null || typeof a.amount !== 'string' || !/^\d{1,78}$/.test(a.amount)) return null
  return { assetId, atoms: BigInt(a.amount), earn: p.kind === 'earn_request' }
}

/** Units by asset id, for exchange actions and for earn requests. */
export interface UnitsBook {
  of(assetId: number, earn: boolean): AssetUnits | null
}

export const NO_UNITS: UnitsBook = { of: () => null }

/** The amount as the operator reads it, or null when the proposal moves none. */
export function amountText(p: Proposal, units: UnitsBook): string | null {
  const m = movedAtoms(p)
  if (!m) return null
  const u = units.of(m.assetId, m.earn)
  return u ? formatAmount(m.atoms, u) : `an amount of asset ${m.assetId} (this desk cannot read its units on ${p.network})`
}

/** The exact action with its amount shown in units (what the detail displays beside the signed JSON's other fields). */
export function actionShown(p: Proposal, units: UnitsBook): Record<string, unknown> {
  const text = amountText(p, units)
  const action = { ...(p.action as Record<string, unknown>) }
  if (text !== null && 'amount' in action) action.amount = text
  return action
}

/**
 * The units this desk knows for the proposals' network: the session's asset list (cached), and the
 * earn pool's config when an earn request is among them. A desk on another network, or a read that
 * fails, knows none (the view says so instead of showing atoms).
 */
export async function unitsFor(sessions: SessionSource | undefined, network: string, earn: boolean): Promise<UnitsBook> {
  if (!sessions) return NO_UNITS
  try {
    const s = await sessions.current()
    if (s.name !== network) return NO_UNITS
    const md = await s.market.get('background')
    let pool: Map<number, AssetUnits> | null = null
    if (earn) {
      const config = await s
        .write()
        .earn.config('background')
        .catch(() => null)
      if (config) pool = new Map(config.assets.map((a) => [a.asset_id, { symbol: a.symbol, decimals: a.balance_decimals }]))
    }
    return {
      of: (assetId, isEarn) => {
        if (isEarn) return pool?.get(assetId) ?? null
        const a = md.assets.get(assetId)
        return a ? { symbol: a.symbol, decimals: a.decimals } : null
      },
    }
  } catch {
    return NO_UNITS
  }
}
