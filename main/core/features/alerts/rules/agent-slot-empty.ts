import { shortAddress } from '../../../../contract/format'
import type { AgentSlotView } from '../../../../contract/types'
import { who, type AlertAccount, type RuleContext, type SessionState } from './context'

/**
 * The overview reads every account's agent slots once per session (saved as last-known state):
 * an account still without a known slot read this long after the session opened is read here.
 */
const AGENTS_WAIT_MS = 60_000

/**
 * A slot that held an agent (as seen before) is empty now: once per lost agent. Slots come
 * from the last slot read (saved as last-known state by the agents read model, which the desk
 * refreshes after agent writes and reconnects); an account still never read a minute into the
 * session gets one background read here.
 */
export async function checkAgents(ctx: RuleContext, st: SessionState, a: AlertAccount): Promise<void> {
  const log = ctx.d.journal.alerts
  const user = a.address.toLowerCase()
  const known = st.s.lastKnown.load<AgentSlotView[]>(user, 'agents')
  let slots: { slot: number; agent: string | null }[] | null =
    known && Array.isArray(known.value) ? known.value.map((v) => ({ slot: v.slot, agent: v.agent })) : null
  let own = st.agentsRead.get(user)
  if (own === undefined && slots === null) {
    if (ctx.d.now() - st.attachedAt < AGENTS_WAIT_MS) return
    st.agentsRead.set(user, null) // once per session, even when it fails
    const r = await st.s.info.userAgents({ user }, { lane: 'background' })
    st.agentsRead.set(user, (own = { at: ctx.d.now(), slots: r.agents.map((x) => ({ slot: x.slot_id, agent: x.agent ?? null })) }))
  }
  if (own && (slots === null || own.at > (known?.fetchedAt ?? -Infinity))) slots = own.slots
  for (const slot of slots ?? []) {
    const key = `agent:${user}:${slot.slot}`
    const had = log.getState(st.s.name, key)
    if (slot.agent) {
      if (had !== slot.agent.toLowerCase()) log.setState(st.s.name, key, slot.agent.toLowerCase())
      continue
    }
    if (had === null) continue
    log.setState(st.s.name, key, null)
    ctx.fire(st.s.name, `agent-empty:${user}:${slot.slot}:${had}`, {
      kind: 'agent-slot-empty',
      level: 'warning',
      title: `Agent slot ${slot.slot} empty: ${who(a)}`,
      message:
        `Slot ${slot.slot} of ${who(a)} no longer holds agent ${shortAddress(had)}. Orders signed by that agent are refused until a new ` +
        `agent is approved.`,
      account: a.address,
    })
  }
}
