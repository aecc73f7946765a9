/** `desk agents …`: the 4 agent slots of an owner (approve, revoke and rotate are write commands). */
import { DeskError } from '../../../core/errors/desk-error'
import { parseAddress } from '../../../core/vault'
import { AgentsReadService } from '../../../core/services/agents-read'
import type { Command, CommandGroup } from '../router'
import { NETWORK_OPTION, vaultAccounts, withReadSide } from '../support/read-side'

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

const group: CommandGroup = { name: 'agents', summary: 'agent (API wallet) slots of an owner', commands: [list] }
export default group
