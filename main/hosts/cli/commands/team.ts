/**
 * `desk team …`: team mode over the app's team channels (a shared PostgreSQL team store, a signed
 * roster and policy, four-eyes approvals). Every command takes --json; secrets are read from files
 * (--password-file, --passphrase-file) or the hidden prompt, never from an argument.
 */
import { readFileSync } from 'node:fs'
import { formatUsd, formatUsdCents } from '../../../contract/format'
import type {
  Address,
  TeamChangeView,
  TeamMembersView,
  TeamPolicyView,
  TeamProposalView,
  TeamRuleView,
  TeamStatusView,
} from '../../../contract/types'
import { DeskError } from '../../../contract/errors'
import type { CliContext } from '../context'
import { reviewLines } from './team-review'
import type { Command, CommandGroup } from '../router'
import { when } from '../support/display'
import { custody, leave } from './team-custody'

/** Team calls sign with the vault's identity key and open the store with the vault's password: unlock first. */
async function ensureUnlocked(ctx: CliContext): Promise<void> {
  const state = await ctx.call('app.state', undefined)
  if (!state.vault.unlocked) await ctx.call('vault.unlock', { passphrase: await ctx.passphraseText() })
}

const short = (id: string) => `${id.slice(0, 10)}…`

export function statusLines(s: TeamStatusView): string[] {
  if (!s.configured) return ['team mode: off (this desk works alone; `desk team configure` points it at a team store)']
  return [
    `team ${s.teamName ?? '(no genesis yet)'}  ${s.state.toUpperCase()}  ${s.detail}`,
    ...(s.broken ? [`  first broken entry: ${s.broken.seq}: ${s.broken.reason}`] : []),
    ...(s.store ? [`  store ${s.store.user}@${s.store.host}:${s.store.port}/${s.store.database} sslmode=${s.store.sslmode}`] : []),
    `  me ${s.me.address ?? '(no identity key: desk team join)'} ${s.me.name ?? ''} ${s.me.roles.join(',')}`.trimEnd(),
    `  chain ${s.chain.length} entries${s.chain.headSeq !== null ? ` (head ${s.chain.headSeq})` : ''}, policy v${s.policyVersion ?? '-'}`,
    `  needs my approval: ${s.needsMyApproval}   waiting on others: ${s.waitingOnOthers}`,
  ]
}

function memberLines(m: TeamMembersView): string[] {
  return [
    `admin quorum ${m.adminQuorum}`,
    ...m.members.map((x) => `  ${x.address}  ${x.name.padEnd(20)} ${x.roles.join(',')}${x.me ? '  (me)' : ''}`),
  ]
}

function ruleLine(r: TeamRuleView): string {
  const when = [
    r.kinds ? `kind ${r.kinds.join('|')}` : '',
    r.accounts ? `account ${r.accounts.join('|')}` : '',
    r.groups ? `group ${r.groups.join('|')}` : '',
    r.minUsd ? `>= ${formatUsd(r.minUsd)}` : '',
    r.minWindowUsd ? `window >= ${formatUsd(r.minWindowUsd)}` : '',
    r.destinations ? `to ${r.destinations.join('|')}` : '',
    r.direction ? `${r.direction === 'loosen' ? 'loosening' : 'tightening'} only` : '',
  ]
    .filter(Boolean)
    .join(', ')
  const then = r.then.effect === 'approve' ? `needs ${r.then.count} approval(s) from ${r.then.roles.join(' or ')}` : r.then.effect
  return `  ${r.id.padEnd(20)} ${when || 'any write'} -> ${then}`
}

function policyLines(p: TeamPolicyView): string[] {
  if (p.version === null)
    return ['no team policy yet: every write is blocked until an admin sets one (`desk team policy set --file rules.json`)']
  return [
    `policy v${p.version} (first match wins, no match blocks):`,
    ...p.rules.map(ruleLine),
    ...Object.entries(p.groups).map(([name, members]) => `  group ${name}: ${members.join(', ')}`),
    ...Object.entries(p.names).map(([address, name]) => `  name ${address}: ${name}`),
    `versions: ${p.history.map((h) => `v${h.version}@${h.seq}`).join(' ')}`,
  ]
}

export function proposalLine(p: TeamProposalView): string {
  const approvals =
    p.needs.count === 0 ? 'none needed (allowed outright)' : `${p.approvals.filter((a) => a.counts).length}/${p.needs.count}`
  return (
    `${short(p.id)}  ${p.status.padEnd(8)} ${p.kind.padEnd(10)} ${p.title}  ` +
    `${p.usd !== null ? formatUsdCents(p.usd) : (p.usdUnknown ?? '')}  by ` +
    `${p.initiator.name ?? p.initiator.address}  approvals ${approvals}  expires ` +
    `${when(p.expiresAt)}${p.outcome ? `  outcome ${p.outcome.state}` : ''}` +
    `${p.rejection ? `  rejected: ${p.rejection.reason}` : ''}`
  )
}

/** A proposal id in full, or an unambiguous prefix of one listed now. */
async function resolveId(ctx: CliContext, given: string): Promise<string> {
  const id = given.toLowerCase()
  if (/^0x[0-9a-f]{64}$/.test(id)) return id
  const all = (await Promise.all((['needsMe', 'waiting', 'history'] as const).map((view) => ctx.call('team.proposals', { view })))).flat()
  const hits = all.filter((p) => p.id.startsWith(id.replace(/…$/, '')))
  if (hits.length === 1) return hits[0]!.id
  throw new DeskError('Usage', hits.length === 0 ? `no proposal ${given}` : `${given} names ${hits.length} proposals; give more of the id`)
}

const status: Command = {
  name: 'status',
  summary: 'team mode on this desk: store link, chain, my roles, what needs my approval',
  async run(ctx) {
    const s = await ctx.call('team.status', undefined)
    ctx.print(statusLines(s), s)
  },
}

const configure: Command = {
  name: 'configure',
  summary:
    'point this desk at a team store: CONNECTION_STRING (postgresql://user@host:port/db?sslmode=...); the password is sealed in the vault',
  positionals: ['CONNECTION_STRING'],
  options: {
    'password-file': { type: 'string', description: 'file holding the team store password (else a hidden prompt)', valueName: 'FILE' },
  },
  async run(ctx) {
    await ensureUnlocked(ctx)
    const password = await ctx.secret('password-file', 'Team store password: ', 'team store password')
    const s = await ctx.call('team.configure', { connectionString: ctx.positionals[0]!, password, passphrase: await ctx.passphraseText() })
    ctx.print(statusLines(s), s)
  },
}

const init: Command = {
  name: 'init',
  summary: 'first admin: create my identity key and the team genesis (TEAM_NAME, --name MY_NAME)',
  positionals: ['TEAM_NAME'],
  options: { name: { type: 'string', description: 'my name in the roster', valueName: 'NAME' } },
  async run(ctx) {
    await ensureUnlocked(ctx)
    const name = ctx.string('name')
    if (!name) throw new DeskError('Usage', 'desk team init TEAM_NAME --name MY_NAME')
    const s = await ctx.call('team.init', { teamName: ctx.positionals[0]!, name, passphrase: await ctx.passphraseText() })
    ctx.print(statusLines(s), s)
  },
}

const join: Command = {
  name: 'join',
  summary: 'create my identity key (once) and print its address for an admin to add',
  async run(ctx) {
    await ensureUnlocked(ctx)
    const r = await ctx.call('team.join', { passphrase: await ctx.passphraseText() })
    ctx.print(
      `my operator address: ${r.address}\nan admin adds it with: desk team members add ${r.address} --name NAME --roles approver`,
      r,
    )
  },
}

const ROLE_HELP = 'comma-separated: viewer, trader, approver, admin'
const rolesOf = (ctx: CliContext) => {
  const r = ctx.string('roles')
  if (!r) throw new DeskError('Usage', `--roles is required (${ROLE_HELP})`)
  return r.split(',').map((x) => x.trim()) as ('viewer' | 'trader' | 'approver' | 'admin')[]
}

const members: Command = {
  name: 'members',
  summary:
    'the verified roster; `members add ADDRESS --name N --roles R`, `members remove ADDRESS`, `members roles ADDRESS --roles R` (admins)',
  positionals: ['ACTION?', 'ADDRESS?'],
  options: {
    name: { type: 'string', description: 'member name (add)', valueName: 'NAME' },
    roles: { type: 'string', description: ROLE_HELP, valueName: 'ROLES' },
  },
  async run(ctx) {
    await ensureUnlocked(ctx)
    const [action, address] = ctx.positionals
    let m: TeamMembersView
    if (action === undefined || action === 'list') m = await ctx.call('team.members', undefined)
    else {
      if (!address) throw new DeskError('Usage', `desk team members ${action} ADDRESS`)
      if (action === 'add') m = await ctx.call('team.members.add', { address, name: ctx.string('name') ?? '', roles: rolesOf(ctx) })
      else if (action === 'remove') m = await ctx.call('team.members.remove', { address })
      else if (action === 'roles') m = await ctx.call('team.members.roles', { address, roles: rolesOf(ctx) })
      else throw new DeskError('Usage', `unknown members action "${action}" (list, add, remove, roles)`)
    }
    ctx.print(memberLines(m), m)
  },
}

const policy: Command = {
  name: 'policy',
  summary: 'the team policy (ordered rules, versions); `policy set --file rules.json` writes a new version (admins)',
  positionals: ['ACTION?'],
  options: {
    file: {
      type: 'string',
      description:
        'JSON array of rules: {id, kinds?, accounts?, groups?, minUsd?, minWindowUsd?, destinations?, ' +
        'direction? (tighten|loosen: limits, address_book), then}; ' +
        'or {"rules": [...], "groups": {"name": ["0x…"]}, "names": {"0x…": "Treasury main"}}: account groups the rules name, ' +
        "and the team's names for accounts and destinations (the same on every desk)",
      valueName: 'FILE',
    },
  },
  async run(ctx) {
    await ensureUnlocked(ctx)
    const action = ctx.positionals[0]
    let p: TeamPolicyView
    if (action === undefined || action === 'show') p = await ctx.call('team.policy', undefined)
    else if (action === 'set') {
      const file = ctx.string('file')
      if (!file) throw new DeskError('Usage', 'desk team policy set --file rules.json')
      let rules: unknown
      try {
        rules = JSON.parse(readFileSync(file, 'utf8'))
      } catch (e) {
        throw new DeskError('BadInput', `${file}: ${(e as Error).message}`)
      }
      // A list of rules, or {rules, groups, names}: main validates them.
      const doc = Array.isArray(rules) ? { rules } : (rules as { rules?: unknown; groups?: unknown; names?: unknown })
      p = await ctx.call('team.policy.set', {
        rules: doc.rules as TeamRuleView[],
        ...(doc.groups !== undefined ? { groups: doc.groups as Record<string, Address[]> } : {}),
        ...(doc.names !== undefined ? { names: doc.names as Record<string, string> } : {}),
      })
    } else throw new DeskError('Usage', `unknown policy action "${action}" (show, set)`)
    ctx.print(policyLines(p), p)
  },
}

const quorum: Command = {
  name: 'quorum',
  summary: 'set how many admins must sign each roster or policy change: `quorum N` (signed by the quorum in force)',
  positionals: ['N'],
  async run(ctx) {
    await ensureUnlocked(ctx)
    const n = Number(ctx.positionals[0])
    if (!Number.isInteger(n) || n < 1) throw new DeskError('Usage', 'desk team quorum N (a whole number, 1 or more)')
    const m = await ctx.call('team.quorum', { adminQuorum: n })
    ctx.print(memberLines(m), m)
  },
}

export function changeLines(list: TeamChangeView[]): string[] {
  if (list.length === 0) return ['no roster or policy change is waiting for admin signatures']
  return list.flatMap((c) => [
    `${c.id}  ${c.kind}  ${c.signers.length}/${c.quorum} admin signature(s) (` +
      `${c.signers.map((s) => s.name ?? s.address).join(', ') || 'none verified'})` +
      `${c.stale ? `  STALE: ${c.stale}` : c.canSign ? '  you may sign' : ''}`,
    ...c.summary.map((l) => `    ${l}`),
  ])
}

const changes: Command = {
  name: 'changes',
  summary: 'roster and policy changes waiting for admin signatures; `changes sign ID` adds mine (the quorum reached: it enters the chain)',
  positionals: ['ACTION?', 'ID?'],
  async run(ctx) {
    await ensureUnlocked(ctx)
    const [action, id] = ctx.positionals
    if (action === undefined || action === 'list') {
      const list = await ctx.call('team.changes', undefined)
      return ctx.print(changeLines(list), list)
    }
    if (action !== 'sign') throw new DeskError('Usage', `unknown changes action "${action}" (list, sign)`)
    if (!id) throw new DeskError('Usage', 'desk team changes sign ID')
    const full = /^0x[0-9a-f]{64}$/.test(id.toLowerCase())
      ? id.toLowerCase()
      : (await ctx.call('team.changes', undefined)).find((c) => c.id.startsWith(id.toLowerCase().replace(/…$/, '')))?.id
    if (!full) throw new DeskError('Usage', `no change ${id} is waiting for signatures`)
    const r = await ctx.call('team.changes.sign', { id: full })
    ctx.print(
      r.applied
        ? `signed: the quorum of ${r.quorum} is reached, the change is in the chain`
        : `signed: ${r.signatures} of ${r.quorum} admin signature(s)`,
      r,
    )
  },
}

const proposals: Command = {
  name: 'proposals',
  summary: 'the approvals queue: --view needsMe (default) | waiting | history; --kind, --account filters',
  options: {
    view: { type: 'string', description: 'needsMe, waiting or history', valueName: 'VIEW' },
    kind: { type: 'string', description: 'action kind (withdraw, transfer, ...)', valueName: 'KIND' },
    account: { type: 'string', description: 'account address', valueName: 'ADDRESS' },
  },
  async run(ctx) {
    await ensureUnlocked(ctx)
    const view = (ctx.string('view') ?? 'needsMe') as 'needsMe' | 'waiting' | 'history'
    const kind = ctx.string('kind')
    const account = ctx.string('account')
    const list = await ctx.call('team.proposals', {
      view,
      ...(kind ? { kind: kind as TeamProposalView['kind'] } : {}),
      ...(account ? { account } : {}),
    })
    ctx.print(list.length === 0 ? [`no proposals (${view})`] : list.map(proposalLine), list)
  },
}

const show: Command = {
  name: 'show',
  summary: 'one proposal: the initiator preview and this desk recomputed one, who approved when',
  positionals: ['ID'],
  async run(ctx) {
    await ensureUnlocked(ctx)
    const p = await ctx.call('team.proposal', { id: await resolveId(ctx, ctx.positionals[0]!) })
    ctx.print(
      [
        proposalLine(p),
        ...reviewLines(p),
        'initiator preview:',
        ...p.initiatorPreview.lines.map((l) => `  ${l}`),
        'recomputed here now:',
        ...(p.recomputed ? p.recomputed.lines.map((l) => `  ${l}`) : [`  (${p.recomputeError})`]),
        ...p.approvals.map((a) => `approved by ${a.name ?? a.address} at ${when(a.at)}${a.counts ? '' : ' (no longer counts)'}`),
      ],
      p,
    )
  },
}

const approve: Command = {
  name: 'approve',
  summary: 'approve proposal ID (signed with my identity key)',
  positionals: ['ID'],
  async run(ctx) {
    await ensureUnlocked(ctx)
    const p = await ctx.call('team.approve', { id: await resolveId(ctx, ctx.positionals[0]!) })
    ctx.print(proposalLine(p), p)
  },
}

const reject: Command = {
  name: 'reject',
  summary: 'reject proposal ID --reason TEXT (a reason is required)',
  positionals: ['ID'],
  options: { reason: { type: 'string', description: 'why (required)', valueName: 'TEXT' } },
  async run(ctx) {
    await ensureUnlocked(ctx)
    const reason = ctx.string('reason')
    if (!reason) throw new DeskError('Usage', 'a rejection needs --reason TEXT')
    const p = await ctx.call('team.reject', { id: await resolveId(ctx, ctx.positionals[0]!), reason })
    ctx.print(proposalLine(p), p)
  },
}

const execute: Command = {
  name: 'execute',
  summary: 'run approved proposal ID on this desk (it holds the signing key): signed once, sent once',
  positionals: ['ID'],
  async run(ctx) {
    await ensureUnlocked(ctx)
    const o = await ctx.call('team.execute', { id: await resolveId(ctx, ctx.positionals[0]!) })
    ctx.print(
      `${o.submission.summary}: ${o.submission.state}${o.submission.code ? ` (${o.submission.code})` : ''}  cloid ${o.submission.cloid}`,
      o,
    )
  },
}

const verify: Command = {
  name: 'verify',
  summary: 'verify the whole team chain from genesis; names the first bad entry (exit 1)',
  async run(ctx) {
    await ensureUnlocked(ctx)
    const v = await ctx.call('team.verify', undefined)
    ctx.print(
      v.ok
        ? `ok: ${v.verified} of ${v.entries} entries verified (head ${v.headSeq})`
        : `BROKEN at entry ${v.broken!.seq}: ${v.broken!.reason} (${v.verified} entries verified before it)`,
      v,
    )
    if (!v.ok) ctx.fail(1)
  },
}

const exportCmd: Command = {
  name: 'export',
  summary: 'the team log as CSV with each entry hash (--out FILE, else stdout)',
  options: { out: { type: 'string', description: 'write the CSV here', valueName: 'FILE' } },
  async run(ctx) {
    await ensureUnlocked(ctx)
    const f = await ctx.call('team.export', undefined)
    const out = ctx.string('out')
    if (out) {
      const { writeFileSync } = await import('node:fs')
      writeFileSync(out, f.content, { mode: 0o600 })
      ctx.print(`wrote ${out}`, { file: out, filename: f.filename })
    } else ctx.print(f.content.trimEnd(), f)
  },
}

const team: CommandGroup = {
  name: 'team',
  summary:
    'team mode: shared team store, roster, policy, approvals (init, join, members, quorum, changes, policy, proposals, approve, reject, verify)',
  commands: [
    status,
    configure,
    init,
    join,
    leave,
    members,
    quorum,
    changes,
    policy,
    proposals,
    show,
    approve,
    reject,
    execute,
    verify,
    exportCmd,
    custody,
  ],
  defaultCommand: 'status',
}

export default team
