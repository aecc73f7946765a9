/** What team mode shows, read from the chain as this desk verified it: status, members, policy, proposals, the log. */
import type { Hex } from 'viem'
import type {
  Address,
  ExportFile,
  Result,
  TeamMembersView,
  TeamPolicyView,
  TeamProposalDetail,
  TeamProposalView,
  TeamRole,
  TeamStatusView,
  TeamVerifyView,
} from '../../../contract/types'
import { DeskError } from '../../errors/desk-error'
import { exportCsv, isSettingsKind, verifyStore } from '../../team'
import { markValuer } from '../../policy'
import type { SessionSource } from '../../session'
import type { VaultHolder } from '../vault'
import { actionShown, unitsFor, type UnitsBook } from './amounts'
import { readBinding } from './binding'
import { storeLocation } from './config'
import { PREVIEW_OF, STATE_OF, previewLines } from './replay'
import type { TeamLink } from './team-link'
import { reviewFields } from './review'
import { rollbackError } from './verified-chain'
import { groupsView, membersView, policyVersionView, proposalView, ruleView } from './views'

export type Dispatch = (
  channel: string,
  args: unknown,
  ctx: { host: 'electron' | 'web' | 'test' | 'cli'; client?: string },
) => Promise<Result<unknown>>

export interface TeamQueryDeps {
  link: TeamLink
  vault: VaultHolder
  /** The session, for the units of the amounts proposals move (absent: the views say the units are unknown). */
  sessions?: SessionSource | undefined
  now: () => number
  /** The dispatcher, for the previews an approver's desk recomputes (null until the core is composed). */
  dispatch: () => Dispatch | null
}

export class TeamQueries {
  constructor(private readonly d: TeamQueryDeps) {}

  async status(): Promise<TeamStatusView> {
    const link = this.d.link
    const me = this.d.vault.current?.identityAddress() ?? null
    const base: TeamStatusView = {
      configured: link.config !== null,
      state: link.state,
      detail: link.detail,
      broken: null,
      store: link.config ? storeLocation(link.config.connectionString) : null,
      teamId: null,
      teamName: null,
      me: { address: me, name: null, roles: [] as TeamRole[] },
      chain: { length: 0, headSeq: null, headDigest: null },
      policyVersion: null,
      needsMyApproval: 0,
      waitingOnOthers: 0,
    }
    const gate = link.gate
    if (!gate) return base
    // Fresh when the store answers (a push may still be on its way); the last verified state otherwise.
    if (link.state === 'live') await gate.sync().catch(() => undefined)
    const r = gate.report()
    const s = r.state
    const member = me ? s.roster?.members.get(me.toLowerCase()) : undefined
    const facts = link.facts()
    let needs = 0
    let waiting = 0
    if (s.roster) {
      for (const p of s.proposals.values()) {
        const v = proposalView(p, s.roster, facts)
        if (v.canApprove) needs++
        else if (v.mine && v.needs.count > 0 && (v.status === 'open' || v.status === 'approved')) waiting++
      }
    }
    return {
      ...base,
      broken: r.broken ? { seq: r.broken.seq.toString(), reason: r.broken.reason } : null,
      teamId: s.roster?.teamId ?? null,
      teamName: s.roster?.teamName ?? null,
      me: { address: me, name: member?.name ?? null, roles: member ? ([...member.roles] as TeamRole[]) : [] },
      chain: { length: r.verified, headSeq: s.head?.seq.toString() ?? null, headDigest: s.head?.digest ?? null },
      policyVersion: s.policy?.version ?? null,
      needsMyApproval: needs,
      waitingOnOthers: waiting,
    }
  }

  async members(): Promise<TeamMembersView> {
    const { roster } = await this.d.link.roster()
    return membersView(roster, this.d.link.facts().me)
  }

  async policy(): Promise<TeamPolicyView> {
    const { state } = await this.d.link.roster()
    return {
      version: state.policy?.version ?? null,
      rules: (state.policy?.rules ?? []).map(ruleView),
      groups: groupsView(state.policy?.groups ?? {}),
      names: { ...(state.policy?.names ?? {}) },
      history: state.policyHistory.map(policyVersionView),
    }
  }

  async proposals(f: {
    view: 'needsMe' | 'waiting' | 'history'
    kind?: string | undefined
    account?: string | undefined
  }): Promise<TeamProposalView[]> {
    const { gate, roster } = await this.d.link.roster()
    const facts = this.d.link.facts()
    const listed = await gate.proposals()
    const books = new Map<string, UnitsBook>()
    for (const { proposal: p } of listed)
      if (!books.has(p.network))
        books.set(
          p.network,
          await unitsFor(
            this.d.sessions,
            p.network,
            listed.some((x) => x.proposal.network === p.network && x.proposal.kind === 'earn_request'),
          ),
        )
    const all = listed.map(({ proposal }) => proposalView(proposal, roster, facts, books.get(proposal.network)))
    return all
      .filter((p) => {
        if (f.kind && p.kind !== f.kind) return false
        if (f.account && p.account !== f.account.toLowerCase()) return false
        const active = p.status === 'open' || p.status === 'approved' || (p.status === 'signed' && p.outcome === null)
        // A write the policy allowed outright waits on nobody: it is history from the moment it is recorded.
        const recorded = p.needs.count === 0
        if (f.view === 'needsMe') return p.canApprove
        if (f.view === 'waiting') return active && !p.canApprove && !recorded
        return !active || recorded
      })
      .sort((a, b) => b.at - a.at)
  }

  /** One proposal as verified, when it is there. */
  async view(id: string): Promise<TeamProposalView> {
    const { state, roster } = await this.d.link.roster()
    const p = state.proposals.get(id)
    if (!p) throw new DeskError('TeamProposalNotFound', `no verified proposal ${id.slice(0, 10)}…`)
    return proposalView(p, roster, this.d.link.facts())
  }

  /** The proposal with the initiator's preview beside one this desk recomputes from live data now. */
  async proposal(id: string): Promise<TeamProposalDetail> {
    const { state, roster } = await this.d.link.roster()
    const p = state.proposals.get(id)
    if (!p) throw new DeskError('TeamProposalNotFound', `no verified proposal ${id.slice(0, 10)}…`)
    const teamNames = state.policy?.names ?? {}
    const units = await unitsFor(this.d.sessions, p.network, p.kind === 'earn_request')
    const view = proposalView(p, roster, this.d.link.facts(), units)
    let recomputed: TeamProposalDetail['recomputed'] = null
    let recomputeError: string | null = null
    const previewChannel = p.replay ? PREVIEW_OF[p.replay.channel] : undefined
    const dispatch = this.d.dispatch()
    if (isSettingsKind(p.kind))
      recomputeError = `a guardrail settings change of desk ${String(p.action.desk)}: the exact change is shown above; there is nothing to recompute here`
    else if (!dispatch) recomputeError = 'previews are not available here'
    else if (p.replay && previewChannel) {
      const r = await dispatch(previewChannel, p.replay.args, { host: 'test' })
      if (!r.ok) recomputeError = recomputeRefusal(r.error, p, teamNames)
      else {
        const shown = previewLines(r.value)
        // This desk's own address book refusing the destination is about this desk: said with the team's name for it.
        const lines = shown.lines.map((l) =>
          l.includes('(DestinationNotAllowed)') && p.destination
            ? `note: ${recomputeRefusal({ code: 'DestinationNotAllowed', message: l }, p, teamNames)}`
            : l,
        )
        recomputed = { ...shown, lines, computedAt: this.d.now(), usd: null }
      }
    } else if (p.replay && STATE_OF[p.replay.channel]) {
      // No preview channel: the state the write acts on, read live (an API key slot, a withdrawal).
      const s = STATE_OF[p.replay.channel]!
      const r = await dispatch(s.channel, s.args(p.replay.args), { host: 'test' })
      if (!r.ok) recomputeError = `${r.error.code}: ${r.error.message}`
      else recomputed = { title: 'read now', lines: s.lines(r.value, p.replay.args), computedAt: this.d.now(), usd: null }
    } else recomputeError = 'this write has no live preview on this desk'
    const sessions = this.d.sessions
    const review = await reviewFields(p, {
      units,
      valueNow: async (assetId, atoms) => {
        if (!sessions || p.kind === 'earn_request') return null // the pool's asset ids are not the exchange's
        const s = await sessions.current()
        if (s.name !== p.network) return null
        const md = await s.market.recent('operator')
        try {
          return markValuer(md, s.now())(assetId, atoms)
        } catch {
          return null // no fresh mark: shown as unreadable here
        }
      },
    })
    const involved = [p.account, p.signer, p.destination, ...review.flatMap((f) => [f.initiator, f.mine])]
    const names = Object.fromEntries(
      involved
        .filter((a): a is string => a !== null && Object.hasOwn(teamNames, a.toLowerCase()))
        .map((a) => [a.toLowerCase(), teamNames[a.toLowerCase()]!]),
    )
    const held = state.custody.get(p.account)
    const me = this.d.link.facts().me
    const custody = held
      ? {
          threshold: held.threshold,
          holders: held.holders.map((h) => ({ address: h.address as Address, name: roster.members.get(h.address)?.name ?? null })),
          mine: me !== null && held.holders.some((h) => h.address === me),
        }
      : null
    return {
      ...view,
      review,
      names,
      custody,
      initiatorPreview: { title: p.title, lines: [...p.preview] },
      recomputed,
      recomputeError,
      action: p.action as Record<string, unknown>,
      actionShown: actionShown(p, units),
      channel: p.replay?.channel ?? null,
      outcomes: p.outcomes.map((o) => ({
        address: o.by as Address,
        state: o.state,
        finalStatus: o.finalStatus,
        code: o.code,
        at: o.at,
        ...(o.evidence !== undefined ? { evidence: o.evidence } : {}),
      })),
    }
  }

  private genesis(): { genesisDigest?: Hex } {
    const g = this.d.link.config?.genesisDigest
    return g ? { genesisDigest: g as Hex } : {}
  }

  /** The whole chain checked from genesis: the first bad entry named. */
  async verify(): Promise<TeamVerifyView> {
    const { store } = await this.d.link.opened()
    const rows = await store.readLog(0n)
    const r = await verifyStore(store, this.genesis())
    const vault = this.d.vault.current
    const kept = vault?.isUnlocked ? (readBinding(vault)?.head ?? null) : null
    let broken = r.broken ? { seq: r.broken.seq.toString(), reason: r.broken.reason } : null
    // A chain that verifies from genesis may still be cut at its tail or rewritten there: the kept head says so.
    if (!broken && kept) {
      const at = rows.find((row) => row.seq === kept.seq)
      const head = r.state.head
      const rb = !at
        ? { kept, store: head, reason: `ends before it (rows were deleted) at entry ${kept.seq}` }
        : at.digest.toLowerCase() !== kept.digest.toLowerCase()
          ? { kept, store: { seq: at.seq, digest: at.digest as Hex }, reason: `holds another entry there at entry ${kept.seq}` }
          : null
      if (rb) broken = { seq: kept.seq.toString(), reason: rollbackError(rb).message }
    }
    return {
      ok: broken === null,
      entries: rows.length,
      verified: r.verified,
      broken,
      headSeq: r.state.head?.seq.toString() ?? null,
      headDigest: r.state.head?.digest ?? null,
      keptSeq: kept?.seq.toString() ?? null,
      keptDigest: kept?.digest ?? null,
    }
  }

  async exportCsv(): Promise<ExportFile> {
    const { store } = await this.d.link.live()
    const content = await exportCsv(store, this.genesis())
    return { filename: `team-log-${new Date(this.d.now()).toISOString().slice(0, 10)}.csv`, mime: 'text/csv', content }
  }
}

/**
 * Why this desk's own preview of the write could not run, said for what it is: an approver's desk
 * holds none of the team's accounts and its own address book may be empty, so a refusal by its own
 * guardrails is about this desk, not the write; the team's address book (its policy's names) says
 * whether the destination is one the team knows.
 */
function recomputeRefusal(e: { code: string; message: string }, p: { destination: string | null }, names: Record<string, string>): string {
  if (e.code === 'DestinationNotAllowed' && p.destination) {
    const name = names[p.destination.toLowerCase()]
    return name
      ? `this desk's own address book does not hold ${p.destination}; the team's address book names it "${name}"`
      : `${p.destination} is neither in this desk's own address book nor named by the team: check it with the initiator`
  }
  if (e.code === 'UnknownAccount' || e.code === 'NoOwnerKey' || e.code === 'AccountNotInVault')
    return `this desk holds no key of the account (${e.code}): the review above is read from the exact action`
  return `${e.code}: ${e.message}`
}
