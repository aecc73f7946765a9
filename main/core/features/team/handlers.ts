/** The team channels (issue 23): every one goes through the desk's TeamService (team mode's state in main). */
import type { HandlerTable } from '../../ipc/dispatch'
import type { TeamService } from './service'

export type TeamChannels =
  | 'team.status'
  | 'team.configure'
  | 'team.init'
  | 'team.join'
  | 'team.members'
  | 'team.members.add'
  | 'team.members.remove'
  | 'team.members.roles'
  | 'team.quorum'
  | 'team.changes'
  | 'team.changes.sign'
  | 'team.policy'
  | 'team.policy.set'
  | 'team.proposals'
  | 'team.proposal'
  | 'team.approve'
  | 'team.reject'
  | 'team.execute'
  | 'team.verify'
  | 'team.export'
  | 'team.leave'
  | 'team.custody.split'
  | 'team.custody.resplit'
  | 'team.custody.status'
  | 'team.custody.cosign'

export function teamHandlers(d: { team: TeamService }): Pick<HandlerTable, TeamChannels> {
  const t = d.team
  return {
    'team.status': () => t.status(),
    'team.configure': (a) => t.configure(a.connectionString, a.password, a.passphrase),
    'team.init': (a) => t.init(a.teamName, a.name, a.passphrase),
    'team.join': (a) => t.join(a.passphrase),
    'team.members': () => t.members(),
    'team.members.add': (a) => t.changeRoster([{ op: 'add', address: a.address, name: a.name, roles: a.roles }]),
    'team.members.remove': (a) => t.changeRoster([{ op: 'remove', address: a.address }]),
    'team.members.roles': (a) => t.changeRoster([{ op: 'roles', address: a.address, roles: a.roles }]),
    'team.quorum': (a) => t.setQuorum(a.adminQuorum),
    'team.changes': () => t.changes(),
    'team.changes.sign': (a) => t.signChange(a.id),
    'team.policy': () => t.policy(),
    'team.policy.set': (a) => t.setPolicy(a.rules, a.groups, a.names),
    'team.proposals': (a) => t.proposals(a),
    'team.proposal': (a) => t.proposal(a.id),
    'team.approve': (a) => t.approve(a.id),
    'team.reject': (a) => t.reject(a.id, a.reason),
    'team.execute': (a, ctx) => t.execute(a.id, ctx),
    'team.verify': () => t.verify(),
    'team.export': () => t.exportCsv(),
    'team.leave': (a) => t.leave(a.passphrase),
    'team.custody.split': (a) => t.custodySplit(a),
    'team.custody.resplit': (a) => t.custodyResplit(a),
    'team.custody.status': () => t.custodyStatus(),
    'team.custody.cosign': (a) => t.custodyCoSign(a.on),
  }
}
