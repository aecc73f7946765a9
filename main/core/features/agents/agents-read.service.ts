import type { AgentSlotView, Address } from '../../../contract/types'
import type { InfoClient } from '../../exchange/info/client'
import type { Lane } from '../../exchange/scheduler'
import type { LastKnownState } from '../../session/last-known'

/** What the read side needs from the vault: which agent keys it holds (never the keys). */
export interface AgentKeyDirectory {
  listAccounts(): { address: Address; agents: { slot: number; address: Address; createdAt: string }[] }[]
}

/**
 * The 4 agent slots of an owner as the service reports them (`userAgents`), each with its
 * address, epoch and whether the vault holds that agent's key (a slot approved elsewhere, or
 * whose key was lost, shows `keyInVault` false).
 */
export class AgentsReadService {
  constructor(
    private readonly info: InfoClient,
    private readonly vault: AgentKeyDirectory | null,
    private readonly lastKnown?: LastKnownState,
  ) {}

  async slots(owner: string, lane: Lane = 'operator'): Promise<AgentSlotView[]> {
    const user = owner.toLowerCase()
    const r = await this.info.userAgents({ user }, { lane })
    const keys = this.vault?.listAccounts().find((a) => a.address.toLowerCase() === user)?.agents ?? []
    const views: AgentSlotView[] = ([0, 1, 2, 3] as const).map((slot) => {
      const s = r.agents.find((a) => a.slot_id === slot)
      const agent = s?.agent ?? null
      const key = agent ? keys.find((k) => k.slot === slot && k.address.toLowerCase() === agent) : undefined
      return {
        slot,
        agent: agent as Address | null,
        epoch: agent && s?.epoch != null ? s.epoch.toString() : null,
        keyInVault: key !== undefined,
        // The service does not report approval times; the vault's key creation time is the closest fact.
        approvedAt: key ? Date.parse(key.createdAt) || null : null,
      }
    })
    this.lastKnown?.save(user, 'agents', views)
    return views
  }
}
