/** Team mode's state in main (placeholder until the store wiring lands): no team configured. */
import type { Address, TeamMembersView, TeamPolicyView, TeamProposalDetail, TeamProposalView, TeamRole, TeamRuleView, TeamStatusView, TeamVerifyView, ExportFile, WriteOutcome } from '../../../contract/types'
import { DeskError } from '../../errors/desk-error'
import type { RosterChange } from '../../team'

/** A rule as the channel's schema validated it (addresses checked, any case). */
export type TeamRuleInput = Omit<TeamRuleView, 'accounts' | 'destinations'> & { accounts?: string[]; destinations?: string[] }

const off = (): never => {
  throw new DeskError('TeamNotConfigured', 'team mode is not configured on this desk (team.configure)')
}

export class TeamService {
  async status(): Promise<TeamStatusView> {
    return { configured: false, state: 'off', detail: 'no team store configured: this desk works alone', broken: null, store: null, teamId: null, teamName: null, me: { address: null, name: null, roles: [] as TeamRole[] }, chain: { length: 0, headSeq: null, headDigest: null }, policyVersion: null, needsMyApproval: 0, waitingOnOthers: 0 }
  }
  configure(_c: string, _p: string, _pp: string): Promise<TeamStatusView> { return off() }
  init(_t: string, _n: string, _p: string): Promise<TeamStatusView> { return off() }
  join(_p: string): Promise<{ address: Address }> { return off() }
  members(): Promise<TeamMembersView> { return off() }
  changeRoster(_c: RosterChange[]): Promise<TeamMembersView> { return off() }
  policy(): Promise<TeamPolicyView> { return off() }
  setPolicy(_r: TeamRuleInput[]): Promise<TeamPolicyView> { return off() }
  proposals(_f: { view: 'needsMe' | 'waiting' | 'history'; kind?: string; account?: string }): Promise<TeamProposalView[]> { return off() }
  proposal(_id: string): Promise<TeamProposalDetail> { return off() }
  approve(_id: string): Promise<TeamProposalView> { return off() }
  reject(_id: string, _r: string): Promise<TeamProposalView> { return off() }
  execute(_id: string): Promise<WriteOutcome> { return off() }
  verify(): Promise<TeamVerifyView> { return off() }
  exportCsv(): Promise<ExportFile> { return off() }
}
