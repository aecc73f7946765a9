import type { AddressBookEntryView, AgentSlotView, PolicyView } from '../../../contract/types'
import type { HandlerTable } from '../../ipc/dispatch'
import { policyEngine } from '../../policy'
import { unlockedWriteSide } from '../../session'
import { agentsFor, revokeAgent, type AgentKeyDirectory } from '../agents'
import { haltAll, type HaltDeps } from './halt'
import { judgeSettings, type SettingsGate } from './team-settings'

export type PolicyChannels =
  | 'policy.show'
  | 'policy.set'
  | 'addresses.list'
  | 'addresses.add'
  | 'addresses.remove'
  | 'policy.halt'
  | 'policy.resume'
  | 'agents.revokeAll'

export interface PolicyDeps extends HaltDeps {
  keys: AgentKeyDirectory
  /** Team mode's verdict on address-book, limit and resume changes (team-settings.ts); absent: a single desk. */
  settings?: SettingsGate
}

/** The times an event's detail names (`times`), for the screen to show in the operator's zone. */
function timesOf(detail: unknown): { times?: Record<string, number> } {
  const t = (detail as { times?: unknown } | null)?.times
  if (!t || typeof t !== 'object') return {}
  const times = Object.fromEntries(Object.entries(t).filter(([, v]) => typeof v === 'number' && Number.isFinite(v))) as Record<
    string,
    number
  >
  return Object.keys(times).length > 0 ? { times } : {}
}

/** The operator-policy channels; every write handler asks the same engine (core/policy) before signing. */
export function policyHandlers(d: PolicyDeps): Pick<HandlerTable, PolicyChannels> {
  const engine = async () => (await policyEngine(d)).engine
  const view = async (): Promise<PolicyView> => {
    const e = await engine()
    const s = e.state()
    // The exchange's events under each of its names, and the desk-wide ones (halt, network changes).
    const events = e
      .eventNetworks()
      .flatMap((n) => d.journal.policyEvents(n, 50))
      .sort((a, b) => b.id - a.id)
      .slice(0, 50)
    return { ...s, events: events.map((x) => ({ id: x.id, at: x.at, kind: x.kind, summary: x.summary, ...timesOf(x.detail) })) }
  }
  const addresses = async (): Promise<AddressBookEntryView[]> => (await engine()).state().addresses
  return {
    'policy.show': () => view(),
    'policy.set': async ({ name, value, passphrase }) => {
      const e = await engine()
      const input = e.setInput(name, value)
      const direction = input.tightening ? 'tighten' : 'loosen'
      await judgeSettings(d.settings, e, { op: 'limit.set', name, value: input.value, direction }, () =>
        input.needsPassphrase ? e.checkPassphrase(passphrase, `changing ${name}`) : Promise.resolve(),
      )
      await e.set(name, value, passphrase)
      return view()
    },
    'addresses.list': () => addresses(),
    'addresses.add': async (a) => {
      const e = await engine()
      const entry = e.addressInput(a)
      await judgeSettings(d.settings, e, { op: 'address.add', ...entry }, () =>
        e.checkPassphrase(a.passphrase, 'changing the address book'),
      )
      return e.addAddress({ ...entry, passphrase: a.passphrase })
    },
    'addresses.remove': async (a) => {
      const e = await engine()
      const label = e.state().addresses.find((x) => x.label.toLowerCase() === a.label.trim().toLowerCase())?.label
      // An unknown label is refused by the engine as today (AddressNotListed), before any proposal.
      if (label !== undefined)
        await judgeSettings(d.settings, e, { op: 'address.remove', label }, () =>
          e.checkPassphrase(a.passphrase, 'changing the address book'),
        )
      return e.removeAddress({ label: a.label, passphrase: a.passphrase })
    },
    // Never judged by the team policy: an emergency halt is immediate on every desk (docs/team-mode.md).
    'policy.halt': () => haltAll(d),
    'policy.resume': async ({ passphrase }) => {
      const e = await engine()
      e.requireHalted()
      await judgeSettings(d.settings, e, { op: 'resume' }, () => e.checkPassphrase(passphrase, 'resuming writes'))
      await e.resume(passphrase)
      return view()
    },
    // Emergency, offered beside halt (allowed while halted: it only removes access).
    'agents.revokeAll': async ({ owner }): Promise<AgentSlotView[]> => {
      const w = await unlockedWriteSide(d)
      const read = async () => agentsFor(await d.sessions.current(), d.keys).slots(owner, 'operator')
      for (const s of (await w.ctx.reads.agents(owner)).filter((x) => x.agent !== null)) {
        await revokeAgent(w.ctx, d.pipeline.run, { owner, slot: s.slotId })
      }
      return read()
    },
  }
}
