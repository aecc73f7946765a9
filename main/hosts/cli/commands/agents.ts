/**
 * `desk agents …`: the 4 agent slots of an owner: list, approve, revoke, rotate, through the
 * app's `agents.*` channels. The app answers a write with the slot's new state; the desk adds the
 * write's journal outcome (and, for rotate and revoke, the slot as it was) to what it prints.
 */
import { addressArg } from '../support/address'
import type { Address, AgentSlotView } from '../../../contract/types'
import type { CliContext } from '../context'
import { journaledOutcome, type OutcomeData } from '../desk-write'
import { UsageError, type Command, type CommandGroup } from '../router'
import { NETWORK_OPTION } from '../support/read-side'

type Slot = AgentSlotView['slot']

const SLOTS = new Map<string, Slot>([
  ['0', 0],
  ['1', 1],
  ['2', 2],
  ['3', 3],
])

function ownerSlot(ctx: CliContext): { owner: Address; slot: Slot } {
  const owner = addressArg(ctx.positionals[0]!)
  const slot = SLOTS.get(ctx.positionals[1] ?? '')
  if (slot === undefined) throw new UsageError('SLOT must be 0, 1, 2 or 3')
  return { owner, slot }
}

/** The selected network's name (what `agents list` has always named). */
async function networkName(ctx: CliContext): Promise<string> {
  return (await ctx.call('app.state', undefined)).network.name
}

function slotOf(slots: AgentSlotView[], n: number): AgentSlotView | undefined {
  return slots.find((s) => s.slot === n)
}

const outcomeText = (o: OutcomeData | null) => (o ? `journal #${o.journalId}, ${o.state}` : 'not journaled')

const approve: Command = {
  name: 'approve',
  summary: 'generate a key in the vault and approve it into SLOT of OWNER (asks to confirm)',
  positionals: ['OWNER', 'SLOT'],
  options: NETWORK_OPTION,
  async run(ctx) {
    const { owner, slot } = ownerSlot(ctx)
    await ctx.unlocked()
    const since = Date.now()
    const v = await ctx.call('agents.approve', { owner, slot })
    const r = {
      owner,
      slot: v.slot,
      agent: v.agent,
      epoch: v.epoch ?? '',
      outcome: await journaledOutcome(ctx, owner, { actionType: 'approveAgent' }, since),
    }
    ctx.print(`slot ${r.slot} of ${r.owner}: agent ${r.agent} approved, epoch ${r.epoch} (${outcomeText(r.outcome)})`, r)
  },
}

const revoke: Command = {
  name: 'revoke',
  summary: 'revoke SLOT of OWNER and retire its key from the vault (asks to confirm)',
  positionals: ['OWNER', 'SLOT'],
  options: NETWORK_OPTION,
  async run(ctx) {
    const { owner, slot } = ownerSlot(ctx)
    await ctx.unlocked()
    const before = slotOf(await ctx.call('agents.list', { owner }), slot)
    const since = Date.now()
    await ctx.call('agents.revoke', { owner, slot })
    // The vault retires the key it held for the slot.
    const r = {
      owner,
      slot,
      retired: before?.keyInVault ? before.agent : null,
      outcome: await journaledOutcome(ctx, owner, { actionType: 'revokeAgent' }, since),
    }
    ctx.print(`slot ${r.slot} of ${r.owner} revoked${r.retired ? `, key ${r.retired} retired` : ''} (${outcomeText(r.outcome)})`, r)
  },
}

const rotate: Command = {
  name: 'rotate',
  summary: 'replace the key of SLOT: new key approved, epoch verified, signer switched, old slot revoked',
  positionals: ['OWNER', 'SLOT'],
  options: NETWORK_OPTION,
  async run(ctx) {
    const { owner, slot } = ownerSlot(ctx)
    await ctx.unlocked()
    const before = slotOf(await ctx.call('agents.list', { owner }), slot)
    const since = Date.now()
    const v = await ctx.call('agents.rotate', { owner, slot })
    const inPlace = v.slot.slot === slot
    const retire = v.steps.find((s) => s.step === 'retire-old-key')
    const r = {
      owner,
      from: { slot, agent: before?.agent ?? null },
      to: {
        owner,
        slot: v.slot.slot,
        agent: v.slot.agent,
        epoch: v.slot.epoch ?? '',
        outcome: await journaledOutcome(ctx, owner, { actionType: 'approveAgent' }, since),
      },
      revoke: !inPlace && retire?.status === 'done' ? await journaledOutcome(ctx, owner, { actionType: 'revokeAgent' }, since) : null,
      inPlace,
      steps: v.steps,
    }
    ctx.print(
      [
        `new key ${r.to.agent} in slot ${r.to.slot}, epoch ${r.to.epoch}`,
        r.inPlace
          ? 'no free slot: replaced in place'
          : r.revoke
            ? `old slot ${r.from.slot} (${r.from.agent ?? 'empty'}) revoked`
            : `old slot ${r.from.slot} was empty`,
      ],
      r,
    )
  },
}

const list: Command = {
  name: 'list',
  summary: 'the 4 agent slots of OWNER: agent address, epoch, key held in the vault',
  positionals: ['OWNER'],
  options: NETWORK_OPTION,
  async run(ctx) {
    const owner = addressArg(ctx.positionals[0]!)
    await ctx.requireSelectedNetwork()
    const r = { owner, network: await networkName(ctx), slots: await ctx.call('agents.list', { owner }) }
    ctx.print(
      [
        `${r.owner} on ${r.network}`,
        ...r.slots.map(
          (s) =>
            `  slot ${s.slot}: ${s.agent ?? '(empty)'}${s.epoch !== null ? `  epoch ${s.epoch}` : ''}` +
            `${s.agent ? (s.keyInVault ? '  key in vault' : '  key NOT in vault') : ''}`,
        ),
      ],
      r,
    )
  },
}

const group: CommandGroup = { name: 'agents', summary: 'agent (API wallet) slots of an owner', commands: [list, approve, revoke, rotate] }
export default group
