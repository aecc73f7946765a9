/** `desk agents …`: the 4 agent slots of an owner: list, approve, revoke, rotate. */
import { DeskError } from '../../../core/errors/desk-error'
import { parseAddress } from '../../../core/vault'
import { AgentsReadService } from '../../../core/features/agents/agents-read.service'
import { approveAgent, revokeAgent, rotateAgent } from '../../../core/features/agents/agents-write.service'
import { isAgentSlot } from '../../../core/vault'
import type { CliContext } from '../context'
import { withWriteSession } from '../desk-write'
import { UsageError, type Command, type CommandGroup } from '../router'
import { NETWORK_OPTION, vaultAccounts, withReadSide } from '../support/read-side'

function ownerSlot(ctx: CliContext): { owner: string; slot: number } {
  let owner: string
  try {
    owner = parseAddress(ctx.positionals[0]!).toLowerCase()
  } catch {
    throw new DeskError('InvalidAddress', `"${ctx.positionals[0]!}" is not a 20-byte 0x address`)
  }
  const slot = Number(ctx.positionals[1])
  if (!/^[0-3]$/.test(ctx.positionals[1] ?? '') || !isAgentSlot(slot)) throw new UsageError('SLOT must be 0, 1, 2 or 3')
  return { owner, slot }
}

const approve: Command = {
  name: 'approve',
  summary: 'generate a key in the vault and approve it into SLOT of OWNER (asks to confirm)',
  positionals: ['OWNER', 'SLOT'],
  options: NETWORK_OPTION,
  async run(ctx) {
    await withWriteSession(ctx, { unlock: true }, async ({ session }) => {
      const r = await approveAgent(session.ctx, ownerSlot(ctx))
      ctx.print(`slot ${r.slot} of ${r.owner}: agent ${r.agent} approved, epoch ${r.epoch} (journal #${r.outcome.journalId}, ${r.outcome.state})`, r)
    })
  },
}

const revoke: Command = {
  name: 'revoke',
  summary: 'revoke SLOT of OWNER and retire its key from the vault (asks to confirm)',
  positionals: ['OWNER', 'SLOT'],
  options: NETWORK_OPTION,
  async run(ctx) {
    await withWriteSession(ctx, { unlock: true }, async ({ session }) => {
      const r = await revokeAgent(session.ctx, ownerSlot(ctx))
      ctx.print(`slot ${r.slot} of ${r.owner} revoked${r.retired ? `, key ${r.retired} retired` : ''} (journal #${r.outcome.journalId}, ${r.outcome.state})`, r)
    })
  },
}

const rotate: Command = {
  name: 'rotate',
  summary: 'replace the key of SLOT: new key approved, epoch verified, signer switched, old slot revoked',
  positionals: ['OWNER', 'SLOT'],
  options: NETWORK_OPTION,
  async run(ctx) {
    await withWriteSession(ctx, { unlock: true }, async ({ session }) => {
      const r = await rotateAgent(session.ctx, ownerSlot(ctx))
      ctx.print(
        [
          `new key ${r.to.agent} in slot ${r.to.slot}, epoch ${r.to.epoch}`,
          r.inPlace ? 'no free slot: replaced in place' : r.revoke ? `old slot ${r.from.slot} (${r.from.agent ?? 'empty'}) revoked` : `old slot ${r.from.slot} was empty`,
        ],
        r,
      )
    })
  },
}

const list: Command = {
  name: 'list',
  summary: 'the 4 agent slots of OWNER: agent address, epoch, key held in the vault',
  positionals: ['OWNER'],
  options: NETWORK_OPTION,
  async run(ctx) {
    let owner: string
    try {
      owner = parseAddress(ctx.positionals[0]!).toLowerCase()
    } catch {
      throw new DeskError('InvalidAddress', `"${ctx.positionals[0]!}" is not a 20-byte 0x address`)
    }
    const { directory } = await vaultAccounts(ctx)
    await withReadSide(ctx, async (rs) => {
      const slots = await new AgentsReadService(rs.info, directory, rs.lastKnown).slots(owner, 'operator')
      ctx.print(
        [
          `${owner} on ${rs.connected.network.name}`,
          ...slots.map((s) => `  slot ${s.slot}: ${s.agent ?? '(empty)'}${s.epoch !== null ? `  epoch ${s.epoch}` : ''}${s.agent ? (s.keyInVault ? '  key in vault' : '  key NOT in vault') : ''}`),
        ],
        { owner, network: rs.connected.network.name, slots },
      )
    })
  },
}

const group: CommandGroup = { name: 'agents', summary: 'agent (API wallet) slots of an owner', commands: [list, approve, revoke, rotate] }
export default group
