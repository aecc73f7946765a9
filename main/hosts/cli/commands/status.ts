/** `desk status …`: the dashboard from the command line (portfolio and credit health). */
import type { Address, CreditHealthView, OverviewView } from '../../../contract/types'
import { DeskError } from '../../../core/errors/desk-error'
import { parseAddress } from '../../../core/vault'
import type { CliContext } from '../context'
import type { Command, CommandGroup } from '../router'
import { NETWORK_OPTION, vaultAccounts, withReadSide } from '../support/read-side'

const ADDRESS_OPTION = { address: { type: 'string' as const, valueName: 'ADDRESS', description: 'an account to include (repeatable by comma); default: every vault account' } }

function addressesFrom(ctx: CliContext): Address[] | undefined {
  const raw = ctx.string('address')
  if (raw === undefined) return undefined
  return raw.split(',').map((a) => {
    try {
      return parseAddress(a.trim()).toLowerCase() as Address
    } catch {
      throw new DeskError('InvalidAddress', `"${a}" is not a 20-byte 0x address`)
    }
  })
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

const show: Command = {
  name: 'show',
  summary: 'balances, credit lines and USD totals of every account',
  options: { ...NETWORK_OPTION, ...ADDRESS_OPTION },
  async run(ctx) {
    const { refs } = await vaultAccounts(ctx)
    const only = addressesFrom(ctx)
    const chosen = only ? only.map((a) => refs.find((r) => r.address === a) ?? { address: a, label: '', group: '', hasKey: false }) : refs
    await withReadSide(ctx, async (rs) => {
      const o = await rs.portfolio.overview(chosen, 'operator')
      ctx.print(overviewLines(o, rs.connected.network.name), { network: rs.connected.network.name, ...o })
    })
  },
}

const credit: Command = {
  name: 'credit',
  summary: 'credit health of one account: line, available, contributions, level',
  positionals: ['ADDRESS'],
  options: NETWORK_OPTION,
  async run(ctx) {
    let address: string
    try {
      address = parseAddress(ctx.positionals[0]!)
    } catch {
      throw new DeskError('InvalidAddress', `"${ctx.positionals[0]!}" is not a 20-byte 0x address`)
    }
    await withReadSide(ctx, async (rs) => {
      const h = await rs.credit.health(address, 'operator')
      if (!h) throw new DeskError('NotCreditAccount', `${address.toLowerCase()} has no credit line on ${rs.connected.network.name}`)
      ctx.print(creditLines(h), h)
    })
  },
}

const group: CommandGroup = { name: 'status', summary: 'portfolio and credit health of your accounts', commands: [show, credit] }
export default group
