/** `desk status …`: the dashboard from the command line (portfolio and credit health). */
import type { Address, CliMode, CreditHealthView, OverviewView } from '../../../contract/types'
import { addressArg } from '../support/address'
import type { CliContext } from '../context'
import type { Command, CommandGroup } from '../router'
import { networkArg } from '../desk-write'
import { NETWORK_OPTION } from '../support/read-side'

const ADDRESS_OPTION = { address: { type: 'string' as const, valueName: 'ACCOUNTS', description: 'accounts to include, by label or address, comma-separated; default: every vault account' } }

function addressesFrom(ctx: CliContext): Address[] | undefined {
  const raw = ctx.string('address')
  if (raw === undefined) return undefined
  return raw.split(',').map((a) => addressArg(a))
}

function overviewLines(o: OverviewView, network: string): string[] {
  const lines = [`network ${network}`]
  for (const r of o.rows) {
    const a = r.account
    const head = `${a.address}  ${a.kind.padEnd(7)} ${a.status.padEnd(7)} ${a.label}`
    lines.push(head)
    if (r.credit) lines.push(`    credit line ${r.credit.creditUsd} USD, available ${r.credit.availableUsd ?? 'unknown (marks stale)'} USD, level ${r.credit.warning}`)
    for (const b of r.available) lines.push(`    ${b.symbol.padEnd(6)} total ${b.total}  available ${b.available}  locked ${b.locked}  ${b.usdValue === null ? 'no fresh mark' : `${b.usdValue} USD`}`)
    if (r.totalUsd !== null) lines.push(`    total ${r.totalUsd} USD`)
    if (r.pendingJournal > 0) lines.push(`    ${r.pendingJournal} journal entr${r.pendingJournal === 1 ? 'y' : 'ies'} not final yet`)
  }
  if (o.rows.length === 0) lines.push('(no accounts: add some with `desk keys …` or pass --address)')
  lines.push(`all accounts: ${o.totalUsd === null ? 'USD total unavailable (a held asset has no fresh mark)' : `${o.totalUsd} USD`}`)
  return lines
}

function creditLines(h: CreditHealthView): string[] {
  return [
    `${h.address}  credit ${h.status}  level ${h.warning}`,
    `  credit line ${h.creditUsd} USD`,
    `  available   ${h.availableUsd ?? '-'} USD${h.marksStale ? `  (marks stale; last known ${h.lastKnownAvailableUsd ?? '-'} USD)` : ''}`,
    `  oracle      ${h.oracle.status}${h.oracle.reasonCode ? ` (${h.oracle.reasonCode})` : ''}`,
    ...h.positions.map(
      (p) => `  ${p.symbol.padEnd(6)} actual ${p.actual}  pending ${p.pendingExposure}  LTV ${p.ltvPercent}%  contributes ${p.contributionUsd ?? 'no mark'}${p.contributionUsd ? ' USD' : ''}${p.markAgeMs !== null ? `  mark ${Math.round(p.markAgeMs / 1000)} s old` : ''}`,
    ),
  ]
}

/** Which way this desk reaches the core: attached to the app's process, or standalone. */
function modeLine(m: CliMode): string {
  return m.mode === 'attached' ? `mode attached to pid ${m.pid} (commands run through that process's core)` : `mode standalone (pid ${m.pid} holds the data directory)`
}

const show: Command = {
  name: 'show',
  summary: 'balances, credit lines and USD totals of every account, and how desk reaches the core',
  options: { ...NETWORK_OPTION, ...ADDRESS_OPTION },
  async run(ctx) {
    const only = addressesFrom(ctx)
    const o = (await ctx.call('cli.status.show', { ...networkArg(ctx), ...(only ? { addresses: only } : {}) })) as OverviewView & { network: string }
    const { mode } = await ctx.core()
    ctx.print([modeLine(mode), ...overviewLines(o, o.network)], { mode, ...o })
  },
}

const credit: Command = {
  name: 'credit',
  summary: 'credit health of one account: line, available, contributions, level',
  positionals: ['ACCOUNT'],
  options: NETWORK_OPTION,
  async run(ctx) {
    const address = addressArg(ctx.positionals[0]!)
    const h = (await ctx.call('cli.status.credit', { ...networkArg(ctx), address: address as Address })) as CreditHealthView
    ctx.print(creditLines(h), h)
  },
}

const group: CommandGroup = { name: 'status', summary: 'portfolio and credit health of your accounts (`desk status` = `desk status show`)', commands: [show, credit], defaultCommand: 'show' }
export default group
