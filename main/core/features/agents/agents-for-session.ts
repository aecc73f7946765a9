import type { NetworkSession } from '../../session'
import { AgentsReadService, type AgentKeyDirectory } from './agents-read.service'

const services = new WeakMap<NetworkSession, AgentsReadService>()

/** The agent-slot reader of a session (one per session; the vault's agent keys looked up live). */
export function agentsFor(s: NetworkSession, keys: AgentKeyDirectory): AgentsReadService {
  let svc = services.get(s)
  if (!svc) {
    svc = new AgentsReadService(s.info, keys, s.lastKnown)
    services.set(s, svc)
  }
  return svc
}
