/** `desk team custody status` and the Custody panel: each team-held account, its holders, T, the last release and refusal. */
import type { Address, TeamCustodyRefusalView, TeamCustodyView } from '../../../contract/types'
import type { CustodyRefusal, Roster, TeamState } from '../../team'

export function custodyStatus(
  state: TeamState,
  roster: Roster,
  lastReleases: ReadonlyMap<string, { at: Date; holder: string; proposalId: string }>,
): TeamCustodyView[] {
  const nameOf = (a: string) => roster.members.get(a)?.name ?? null
  const refusalView = (x: CustodyRefusal | undefined): TeamCustodyRefusalView | null =>
    x
      ? {
          at: x.at,
          by: x.by as Address,
          byName: nameOf(x.by),
          side: x.side,
          code: x.code,
          reason: x.reason,
          proposalId: x.proposal,
        }
      : null
  return [...state.custody.values()].map((r) => {
    const l = lastReleases.get(r.account)
    return {
      account: r.account as Address,
      version: r.version,
      threshold: r.threshold,
      holders: r.holders.map((h) => ({ address: h.address as Address, name: nameOf(h.address) })),
      recovery: r.recovery !== null,
      lastRelease: l ? { at: l.at.getTime(), holder: l.holder as Address, proposalId: l.proposalId } : null,
      lastRefusal: refusalView(state.custodyRefusals.findLast((x) => x.account === r.account)),
    }
  })
}
