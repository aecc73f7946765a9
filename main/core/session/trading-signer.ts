import type { Address } from 'viem'
import { DeskError } from '../errors/desk-error'
import type { AgentSlot, SignerRef } from '../vault/types'
import type { TradeAction } from '../wire'
import type { WriteContext } from './write-context'

/** Which key signs an owner's trading writes: one of its agents (with the slot's epoch) or the owner key. */
export interface TradingSigner {
  ref: SignerRef
  /** The slot epoch from userAgents; required for agent-signed writes. */
  agentEpoch?: bigint
  /** The authority address the service recovers. */
  address: string
}

/** Journal state kind holding the preferred agent slot per owner (set by rotation). */
export const PREFERRED_SLOT_KIND = 'tradingSlot'

export interface AgentKeys {
  /** Address of the agent key the vault holds for (owner, slot), or null. */
  agentAddress(owner: Address, slot: AgentSlot): Address | null
}

/** Agent keys the write side can create and retire (rotation). */
export interface AgentKeyStore extends AgentKeys {
  generateAgentKey(owner: Address, slot: AgentSlot, options?: { replace?: boolean }): Promise<Address>
  retireAgentKey(owner: Address, slot: AgentSlot): Promise<Address>
}

/**
 * Picks the trading signer: the preferred slot (set when a rotation finished) when its key is in
 * the vault and approved on the service, else the lowest approved slot whose key the vault holds,
 * else the owner key. The epoch always comes from userAgents, never from memory.
 */
export async function tradingSignerFor(ctx: WriteContext & { keys: AgentKeys }, owner: Address): Promise<TradingSigner> {
  // Kept between agent writes when the reads can (an order must not wait for a userAgents read).
  const agents = await (ctx.reads.signerAgents ? ctx.reads.signerAgents(owner) : ctx.reads.agents(owner))
  const pref = ctx.journal.getState<{ slot: number }>(ctx.network, owner, PREFERRED_SLOT_KIND)?.value.slot
  const usable = agents
    .filter((a) => a.agent !== null && a.epoch !== null && [0, 1, 2, 3].includes(a.slotId))
    .filter((a) => ctx.keys.agentAddress(owner, a.slotId as AgentSlot)?.toLowerCase() === a.agent!.toLowerCase())
    .sort((a, b) => (a.slotId === pref ? -1 : b.slotId === pref ? 1 : a.slotId - b.slotId))
  const pick = usable[0]
  if (pick)
    return { ref: { owner, role: 'agent', slot: pick.slotId as AgentSlot }, agentEpoch: pick.epoch!, address: pick.agent!.toLowerCase() }
  if (!ctx.hasOwnerKey(owner))
    throw new DeskError('NoTradingKey', `no approved agent key and no owner key for ${owner} in the vault`, { owner })
  return { ref: { owner, role: 'owner' }, address: owner.toLowerCase() }
}

/**
 * The desk's one rule for trading writes (docs/operator-guide.md, "The confirmation"): an action
 * that can open or change exposure (an order, a modify, or a batch holding one) and is signed by
 * the owner key asks the operator first, like every other owner-key write. Cancels never ask,
 * whatever key signs them: they only reduce exposure, and the halt must not wait on a dialog.
 * Agent-signed orders do not ask: an API key can trade but cannot move funds.
 */
export function ownerKeyTradeNeedsConfirmation(signer: SignerRef, action: TradeAction): boolean {
  if (signer.role !== 'owner') return false
  switch (action.type) {
    case 'order':
    case 'modify':
      return true
    case 'batch':
      return action.items.some((i) => i.type === 'order' || i.type === 'modify')
    default:
      return false
  }
}

/**
 * Enforced where every /trade write of every host is signed (the session's submitter): an
 * owner-key order that does not carry the operator's confirmation (an `order` intent) is refused
 * before anything is signed or journaled.
 */
export function requireOwnerOrderConfirmation(req: { signer: SignerRef; action: TradeAction; intent?: { action: string } }): void {
  if (!ownerKeyTradeNeedsConfirmation(req.signer, req.action) || req.intent?.action === 'order') return
  throw new DeskError(
    'ConfirmationRequired',
    `an order signed by the owner key of ${req.signer.owner} needs the operator's confirmation; nothing was signed`,
    { owner: req.signer.owner },
  )
}
