import { defineStore } from 'pinia'
import { computed, ref } from 'vue'
import type {
  Address,
  TeamActionKind,
  TeamChangeView,
  TeamEvent,
  TeamMembersView,
  TeamPolicyView,
  TeamProposalDetail,
  TeamProposalView,
  TeamRole,
  TeamRuleView,
  TeamStatusView,
  TeamVerifyView,
  WriteOutcome,
} from '../../../../main/contract/types'
import { call } from '../../platform/bridge/desk'

export type ProposalsTab = 'needsMe' | 'waiting' | 'history'
export interface ProposalFilter {
  kind?: TeamActionKind
  account?: Address
}

/**
 * Team mode as main verifies it: the link to the team store, the roster, the policy, proposals.
 * Main decides everything (quorum, roles, expiry, who may execute); this store only shows it and
 * forwards the operator's choices. The `state.team` push keeps the status (and the bar's count)
 * live and tells the open screens to re-read their proposals.
 */
export const useTeamStore = defineStore('team', () => {
  const status = ref<TeamStatusView | null>(null)
  const statusError = ref<unknown>(null)
  const members = ref<TeamMembersView | null>(null)
  const policy = ref<TeamPolicyView | null>(null)
  const proposals = ref<TeamProposalView[]>([])
  const proposalsError = ref<unknown>(null)
  const detail = ref<TeamProposalDetail | null>(null)
  const detailError = ref<unknown>(null)
  const verifyResult = ref<TeamVerifyView | null>(null)
  /** Roster and policy changes waiting for admin signatures (quorum above 1), as main verifies them. */
  const changes = ref<TeamChangeView[]>([])
  /** What the last roster or policy change of this operator became when it waits for other admins. */
  const changeNote = ref<string | null>(null)

  /** What the open screens show, so a push re-reads exactly that. */
  const openList = ref<{ tab: ProposalsTab; filter: ProposalFilter } | null>(null)
  const openDetail = ref<string | null>(null)
  /** The Team screen is open: a push re-reads its roster and policy. */
  const openTeam = ref(false)

  /** The bar's count: open proposals this operator may approve now (0 when team mode is off). */
  const needsMe = computed(() => (status.value && status.value.state !== 'off' ? status.value.needsMyApproval : 0))
  const isAdmin = computed(() => status.value?.me.roles.includes('admin') ?? false)
  const on = computed(() => !!status.value && status.value.configured && status.value.state !== 'off')

  async function loadStatus(): Promise<void> {
    try {
      status.value = await call('team.status')
      statusError.value = null
    } catch (e) {
      statusError.value = e
    }
  }

  /** Roster and policy: only a verified chain has them (unreachable or tampered keeps the last ones shown). */
  async function loadTeam(): Promise<void> {
    await loadStatus()
    if (!status.value || status.value.state !== 'live' || !status.value.teamId) return
    const [m, p, c] = await Promise.allSettled([call('team.members'), call('team.policy'), call('team.changes')])
    if (m.status === 'fulfilled') members.value = m.value
    if (p.status === 'fulfilled') policy.value = p.value
    if (c.status === 'fulfilled') changes.value = c.value
  }

  async function loadChanges(): Promise<void> {
    try {
      changes.value = await call('team.changes')
    } catch {
      // Kept as shown; the next push or loadTeam reads them again.
    }
  }

  /**
   * An admin's roster or policy change: applied at once with an admin quorum of 1; above it main
   * keeps it signed by this admin and answers TeamChangeNeedsAdmins, which is not a failure: the
   * change is listed for the other admins to sign.
   */
  async function adminChange(run: () => Promise<void>): Promise<'applied' | 'waiting'> {
    changeNote.value = null
    try {
      await run()
      return 'applied'
    } catch (e) {
      if ((e as { code?: unknown }).code !== 'TeamChangeNeedsAdmins') throw e
      changeNote.value = (e as Error).message
      changes.value = await call('team.changes')
      return 'waiting'
    } finally {
      await loadStatus()
    }
  }

  async function signChange(id: string): Promise<void> {
    const r = await call('team.changes.sign', { id })
    changeNote.value = r.applied
      ? `Signed: the quorum of ${r.quorum} is reached and the change is in the team chain.`
      : `Signed: ${r.signatures} of ${r.quorum} admin signatures.`
    await loadTeam()
  }

  let listRequest = 0
  async function loadProposals(tab: ProposalsTab, filter: ProposalFilter = {}): Promise<void> {
    openList.value = { tab, filter }
    const mine = ++listRequest
    try {
      const r = await call('team.proposals', { view: tab, ...filter })
      // A slower answer for a tab or filter the operator already left must not overwrite the new one.
      if (mine === listRequest) proposals.value = r
      proposalsError.value = null
    } catch (e) {
      proposalsError.value = e
    }
  }

  async function loadDetail(id: string): Promise<void> {
    openDetail.value = id
    try {
      const d = await call('team.proposal', { id })
      if (openDetail.value === id) detail.value = d
      detailError.value = null
    } catch (e) {
      detailError.value = e
    }
  }

  function closeList(): void {
    openList.value = null
  }
  function closeDetail(): void {
    openDetail.value = null
    detail.value = null
    detailError.value = null
  }

  /** A push: the status at once; proposals (and the roster/policy) re-read where a screen shows them. */
  function apply(e: TeamEvent): void {
    const was = status.value
    status.value = e.status
    statusError.value = null
    if (e.proposalsChanged) {
      if (openList.value) void loadProposals(openList.value.tab, openList.value.filter)
      if (openDetail.value) void loadDetail(openDetail.value)
    }
    // A new verified entry (a roster or policy change among them), or the link back: re-read what the Team screen shows.
    const moved = was?.state !== 'live' || was.chain.headSeq !== e.status.chain.headSeq || was.teamId !== e.status.teamId
    if (e.status.state === 'live' && moved && (members.value || policy.value || openTeam.value)) void loadTeam()
    // An admin change made or signed on another desk (pushed): the waiting list, where the Team screen shows it.
    else if (e.status.state === 'live' && e.changesChanged && openTeam.value) void loadChanges()
  }

  async function afterWrite(id: string): Promise<void> {
    await Promise.allSettled([
      loadStatus(),
      openDetail.value === id ? loadDetail(id) : Promise.resolve(),
      openList.value ? loadProposals(openList.value.tab, openList.value.filter) : Promise.resolve(),
    ])
  }

  async function approve(id: string): Promise<TeamProposalView> {
    const p = await call('team.approve', { id })
    await afterWrite(id)
    return p
  }
  async function reject(id: string, reason: string): Promise<TeamProposalView> {
    const p = await call('team.reject', { id, reason })
    await afterWrite(id)
    return p
  }
  async function execute(id: string): Promise<WriteOutcome> {
    const o = await call('team.execute', { id })
    await afterWrite(id)
    return o
  }

  async function configure(connectionString: string, password: string, passphrase: string): Promise<void> {
    status.value = await call('team.configure', { connectionString, password, passphrase })
    await loadTeam()
  }
  async function init(teamName: string, name: string, passphrase: string): Promise<void> {
    status.value = await call('team.init', { teamName, name, passphrase })
    await loadTeam()
  }
  const join = (passphrase: string): Promise<{ address: Address }> => call('team.join', { passphrase })

  const addMember = (address: Address, name: string, roles: TeamRole[]) =>
    adminChange(async () => void (members.value = await call('team.members.add', { address, name, roles })))
  const removeMember = (address: Address) => adminChange(async () => void (members.value = await call('team.members.remove', { address })))
  const setRoles = (address: Address, roles: TeamRole[]) =>
    adminChange(async () => void (members.value = await call('team.members.roles', { address, roles })))
  const setPolicy = (rules: TeamRuleView[], groups: Record<string, Address[]> = {}, names?: Record<string, string>) =>
    adminChange(async () => void (policy.value = await call('team.policy.set', { rules, groups, ...(names ? { names } : {}) })))

  /** Team custody (issue 32): the team-held accounts, and an admin's split (main splits; the key never reaches here). */
  const custodyStatus = () => call('team.custody.status')
  const custodySplit = (a: { account: string; holders: string[]; threshold: number; recoveryFile: string | null }) =>
    call('team.custody.split', a)
  const custodyResplit = (a: {
    account: string
    holders: string[]
    threshold: number
    recoveryFile: string | null
    recoveryShareFile: string | null
  }) => call('team.custody.resplit', a)

  async function verify(): Promise<TeamVerifyView> {
    verifyResult.value = await call('team.verify')
    return verifyResult.value
  }
  const exportCsv = () => call('team.export')

  return {
    openTeam,
    status,
    statusError,
    members,
    policy,
    proposals,
    proposalsError,
    detail,
    detailError,
    verifyResult,
    changes,
    changeNote,
    signChange,
    needsMe,
    isAdmin,
    on,
    loadStatus,
    loadTeam,
    loadProposals,
    loadDetail,
    closeList,
    closeDetail,
    apply,
    approve,
    reject,
    execute,
    configure,
    init,
    join,
    addMember,
    removeMember,
    setRoles,
    setPolicy,
    verify,
    exportCsv,
    custodyStatus,
    custodySplit,
    custodyResplit,
  }
})
