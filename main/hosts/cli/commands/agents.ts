/** `desk agents …`: the 4 agent slots of an owner: list, approve, revoke, rotate. */
import { addressArg } from '../support/address'
import type { Address, AgentSlotView } from '../../../contract/types'
import type { ApprovedAgent, RotationResult } from '../../../core/features/agents'
import type { AgentSlot } from '../../../core/vault'
import type { CliContext } from '../context'
import { networkArg, writeArgs, type OutcomeData } from '../desk-write'
import { UsageError, type Command, type CommandGroup } from '../router'
import { NETWORK_OPTION } from '../support/read-side'

function ownerSlot(ctx: CliContext): { owner: Address; slot: AgentSlot } {
  const owner = addressArg(ctx.positionals[0]!)
  const slot = Number(ctx.positionals[1])
  if (!/^[0-3]$/.test(ctx.positionals[1] ?? '')) throw new UsageError('SLOT must be 0, 1, 2 or 3')
  return { owner: owner as Address, slot: slot as AgentSlot }
}

const approve: Command = {
  name: 'approve',
  summary: 'generate a key in the vault and approve it into SLOT of OWNER (asks to confirm)',
  positionals: ['OWNER', 'SLOT'],
  options: NETWORK_OPTION,
  async run(ctx) {
    const r = (await ctx.call('cli.agents.approve', { ...ownerSlot(ctx), ...(await writeArgs(ctx)) })) as ApprovedAgent
    ctx.print(`slot ${r.slot} of ${r.owner}: agent ${r.agent} approved, epoch ${r.epoch} (journal #${r.outcome.journalId}, ${r.outcome.state})`, r)
  },
}

const revoke: Command = {
  name: 'revoke',
  summary: 'revoke SLOT of OWNER and retire its key from the vault (asks to confirm)',
  positionals: ['OWNER', 'SLOT'],
  options: NETWORK_OPTION,
  async run(ctx) {
    const r = (await ctx.call('cli.agents.revoke', { ...ownerSlot(ctx), ...(await writeArgs(ctx)) })) as { slot: number; owner: string; retired: string | null; outcome: OutcomeData }
    ctx.print(`slot ${r.slot} of ${r.owner} revoked${r.retired ? `, key ${r.retired} retired` : ''} (journal #${r.outcome.journalId}, ${r.outcome.state})`, r)
  },
}

const rotate: Command = {
  name: 'rotate',
  summary: 'replace the key of SLOT: new key approved, epoch verified, signer switched, old slot revoked',
  positionals: ['OWNER', 'SLOT'],
  options: NETWORK_OPTION,
  async run(ctx) {
    const r = (await ctx.call('cli.agents.rotate', { ...ownerSlot(ctx), ...(await writeArgs(ctx)) })) as RotationResult
    ctx.print(
      [
        `new key ${r.to.agent} in slot ${r.to.slot}, epoch ${r.to.epoch}`,
        r.inPlace ? 'no free slot: replaced in place' : r.revoke ? `old slot ${r.from.slot} (${r.from.agent ?? 'empty'}) revoked` : `old slot ${r.from.slot} was empty`,
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
    const r = (await ctx.call('cli.agents.list', { ...networkArg(ctx), owner: owner as Address })) as { owner: string; network: string; slots: AgentSlotView[] }
    ctx.print(
      [
        `${r.owner} on ${r.network}`,
        ...r.slots.map((s) => `  slot ${s.slot}: ${s.agent ?? '(empty)'}${s.epoch !== null ? `  epoch ${s.epoch}` : ''}${s.agent ? (s.keyInVault ? '  key in vault' : '  key NOT in vault') : ''}`),
      ],
      r,
    )
  },
}

const group: CommandGroup = { name: 'agents', summary: 'agent (API wallet) slots of an owner', commands: [list, approve, revoke, rotate] }
export default group
