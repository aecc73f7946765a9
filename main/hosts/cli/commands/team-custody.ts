/**
 * `desk team custody …` and `desk team leave`: owner keys held by the team's shares (issue 32), and
 * leaving a team once its admins removed this operator (issue 30). Through the app's channels; the
 * split happens in main (the key never reaches the CLI) and the recovery share file is written by
 * main where the operator says.
 */
import type { AccountView, TeamCustodySplitView, TeamCustodyView, TeamMembersView } from '../../../contract/types'
import { DeskError } from '../../../contract/errors'
import type { CliContext } from '../context'
import type { Command } from '../router'
import { when } from '../support/display'

const ADDRESS = /^0x[0-9a-fA-F]{40}$/

async function ensureUnlocked(ctx: CliContext): Promise<void> {
  const state = await ctx.call('app.state', undefined)
  if (!state.vault.unlocked) await ctx.call('vault.unlock', { passphrase: await ctx.passphraseText() })
}

/** An account by its vault label or its address. */
async function accountOf(ctx: CliContext, given: string): Promise<string> {
  if (ADDRESS.test(given)) return given.toLowerCase()
  const list: AccountView[] = await ctx.call('accounts.list', undefined)
  const hit = list.filter((a) => a.label === given)
  if (hit.length !== 1) throw new DeskError('UnknownAccount', `no single vault account is labelled "${given}": give its address`)
  return hit[0]!.address.toLowerCase()
}

/** Members by roster name or identity address, comma-separated. */
async function membersOf(ctx: CliContext, given: string): Promise<string[]> {
  const roster: TeamMembersView = await ctx.call('team.members', undefined)
  return given.split(',').map((x) => {
    const t = x.trim()
    if (ADDRESS.test(t)) return t.toLowerCase()
    const m = roster.members.filter((r) => r.name === t)
    if (m.length !== 1) throw new DeskError('Usage', `no single team member is named "${t}": give the identity address`)
    return m[0]!.address.toLowerCase()
  })
}

export function custodyLines(list: TeamCustodyView[]): string[] {
  if (list.length === 0) return ['no account is held by the team']
  return list.flatMap((c) => {
    const shares = `${c.threshold} of ${c.holders.length + (c.recovery ? 1 : 0)} shares (split version ${c.version})`
    const holders = c.holders.map((h) => h.name ?? h.address).join(', ') + (c.recovery ? ' and an offline recovery share' : '')
    const r = c.lastRelease
    const release = r ? `${r.holder} ${when(r.at)} (proposal ${r.proposalId.slice(0, 10)}…)` : 'none'
    const lines = [`${c.account}: ${shares}, held by ${holders}; last release: ${release}`]
    const f = c.lastRefusal
    if (f) {
      const who = f.byName ?? f.by
      const what = f.side === 'release' ? `${who}'s desk released nothing` : `${who}'s desk signed nothing${f.code ? ` (${f.code})` : ''}`
      lines.push(`  last refusal: ${what} ${when(f.at)} for proposal ${f.proposalId.slice(0, 10)}…: ${f.reason}`)
    }
    return lines
  })
}

export const custody: Command = {
  name: 'custody',
  summary:
    'owner keys held by the team: `custody status`; ' +
    '`custody split ACCOUNT --holders A,B --threshold 2 --recovery-file FILE` (admin; the key leaves this vault); ' +
    '`custody resplit ACCOUNT --holders A,C [--recovery-share FILE]`; `custody cosign on|off`',
  positionals: ['ACTION', 'ARG?'],
  options: {
    holders: { type: 'string', description: 'share holders: member names or identity addresses, comma-separated', valueName: 'LIST' },
    threshold: { type: 'string', description: 'shares needed to sign (default 2)', valueName: 'N' },
    'recovery-file': { type: 'string', description: 'write the offline recovery share here (kept by no desk)', valueName: 'FILE' },
    'recovery-share': {
      type: 'string',
      description: 're-split: the offline recovery share standing in for a lost holder',
      valueName: 'FILE',
    },
  },
  async run(ctx) {
    await ensureUnlocked(ctx)
    const action = ctx.positionals[0]
    if (action === 'status') {
      const list: TeamCustodyView[] = await ctx.call('team.custody.status', undefined)
      ctx.print(custodyLines(list), list)
      return
    }
    if (action === 'cosign') {
      const on = ctx.positionals[1]
      if (on !== 'on' && on !== 'off') throw new DeskError('Usage', 'desk team custody cosign on|off')
      const r = await ctx.call('team.custody.cosign', { on: on === 'on' })
      ctx.print(
        r.coSign
          ? 'co-signer rule on: this desk releases its share for writes the verified team policy allows outright'
          : 'co-signer rule off: this desk releases its share only for approved proposals',
        r,
      )
      return
    }
    if (action !== 'split' && action !== 'resplit')
      throw new DeskError(
        'Usage',
        'desk team custody status | split ACCOUNT --holders A,B [--threshold 2] [--recovery-file FILE] | ' +
          'resplit ACCOUNT --holders A,C [--recovery-share FILE] | cosign on|off',
      )
    const given = ctx.positionals[1]
    const holders = ctx.string('holders')
    if (!given || !holders)
      throw new DeskError('Usage', 'desk team custody split ACCOUNT --holders A,B [--threshold 2] [--recovery-file FILE]')
    const threshold = Number(ctx.string('threshold') ?? '2')
    if (!Number.isInteger(threshold)) throw new DeskError('Usage', '--threshold is a whole number (at least 2)')
    const args = {
      account: await accountOf(ctx, given),
      holders: await membersOf(ctx, holders),
      threshold,
      recoveryFile: ctx.string('recovery-file') ?? null,
    }
    const r: TeamCustodySplitView =
      action === 'split'
        ? await ctx.call('team.custody.split', args)
        : await ctx.call('team.custody.resplit', { ...args, recoveryShareFile: ctx.string('recovery-share') ?? null })
    ctx.print(
      [
        r.applied
          ? `${r.account} is held by the team: ${r.threshold} of ${r.holders.length} holders' shares sign; its key has left this vault`
          : `signed by you: the split waits for the other admins (desk team changes); the key stays here until it lands`,
        ...(r.recoveryChecksum
          ? [`recovery share written; its checksum: ${r.recoveryChecksum} (store the file away, off every desk)`]
          : []),
      ],
      r,
    )
  },
}

export const leave: Command = {
  name: 'leave',
  summary: "leave the team this vault is bound to (only after the team's admins removed you)",
  async run(ctx) {
    await ensureUnlocked(ctx)
    const s = await ctx.call('team.leave', { passphrase: await ctx.passphraseText() })
    ctx.print(`this desk left its team and works alone (team mode ${s.state})`, s)
  },
}
