/** `desk status …`: the dashboard from the command line (portfolio and credit health). */
import type { Address, CliMode, CreditHealthView, OverviewView } from '../../../contract/types'
import { DeskError, isDeskError } from '../../../contract/errors'
import { formatAccount, formatAge, formatDuration, formatPercent, formatUsdCents, shortAddress, UNKNOWN } from '../../../contract/format'
import { addressArg } from '../support/address'
import { accountNamer, amount, when, type AccountNamer } from '../support/display'
import type { CliContext } from '../context'
import type { Command, CommandGroup } from '../router'
import { NETWORK_OPTION } from '../support/read-side'

const ADDRESS_OPTION = {
  address: {
    type: 'string' as const,
    valueName: 'ACCOUNTS',
    description: 'accounts to include, by label or address, comma-separated; default: every vault account',
  },
}

function addressesFrom(ctx: CliContext): Address[] | undefined {
  const raw = ctx.string('address')
  if (raw === undefined) return undefined
  return raw.split(',').map((a) => addressArg(a))
}

export function overviewLines(o: OverviewView, network: string, now = Date.now()): string[] {
  const lines = [`network ${network}, as of ${when(o.asOf, now)}`]
  for (const r of o.rows) {
    const a = r.account
    const age = r.fetchedAt === null ? 'never fetched' : `fetched ${formatAge(r.fetchedAt, now)}${r.stale ? ', stale' : ''}`
    // As the Overview says it: an address the exchange does not know yet is "not activated", not "unknown none".
    const kindStatus = a.status === 'none' ? 'not activated' : `${a.kind} ${a.status}`
    lines.push(`${formatAccount(a).text}  ${kindStatus}  (${age})`)
    if (r.credit)
      lines.push(
        `    credit line ${formatUsdCents(r.credit.creditUsd)}, available ` +
          `${r.credit.availableUsd === null ? `${UNKNOWN} (marks stale)` : formatUsdCents(r.credit.availableUsd)}, level ` +
          `${r.credit.warning}`,
      )
    for (const b of r.available) {
      lines.push(
        `    ${b.symbol.padEnd(6)} total ${amount(b.total, b.symbol)}  available ` +
          `${amount(b.available, b.symbol)}  locked ${amount(b.locked, b.symbol)}  ` +
          `${b.usdValue === null ? `${UNKNOWN} (${b.usdReason ?? 'no fresh mark'})` : formatUsdCents(b.usdValue)}`,
      )
    }
    if (r.totalUsd !== null) lines.push(`    total ${formatUsdCents(r.totalUsd)}`)
    if (r.pendingJournal > 0) lines.push(`    ${r.pendingJournal} journal entr${r.pendingJournal === 1 ? 'y' : 'ies'} not final yet`)
  }
  if (o.rows.length === 0) lines.push('(no accounts: add some with `desk keys …` or pass --address)')
  lines.push(`all accounts: ${o.totalUsd === null ? `${UNKNOWN} (a held asset has no fresh mark)` : formatUsdCents(o.totalUsd)}`)
  return lines
}

export function creditLines(h: CreditHealthView, name: AccountNamer = shortAddress): string[] {
  return [
    `${name(h.address)}  credit ${h.status}  level ${h.warning}`,
    `  credit line ${formatUsdCents(h.creditUsd)}`,
    `  available   ${formatUsdCents(h.availableUsd)}${h.marksStale ? `  (marks stale; last known ${formatUsdCents(h.lastKnownAvailableUsd)})` : ''}`,
    `  oracle      ${h.oracle.status}${h.oracle.reasonCode ? ` (${h.oracle.reasonCode})` : ''}`,
    ...h.positions.map(
      (p) =>
        `  ${p.symbol.padEnd(6)} actual ${amount(p.actual, p.symbol)}  pending ` +
        `${amount(p.pendingExposure, p.symbol)}  LTV ` +
        `${formatPercent(String(p.ltvPercent))}  contributes ` +
        `${p.contributionUsd === null ? `${UNKNOWN} (no mark)` : formatUsdCents(p.contributionUsd)}` +
        `${p.markAgeMs !== null ? `  mark ${formatDuration(p.markAgeMs)} old` : ''}`,
    ),
  ]
}

/** Which way this desk reaches the core: attached to the app's process, or standalone. */
function modeLine(m: CliMode): string {
  return m.mode === 'attached'
    ? `mode attached to pid ${m.pid} (commands run through that process's core)`
    : `mode standalone (pid ${m.pid} holds the data directory)`
}

/** The service could not be asked at all (as opposed to answering with an error). */
const UNREACHABLE = new Set(['InfoUnreachable', 'InfoTimeout'])

const SANDBOX_HINT =
  'the sandbox is started by `npm run sandbox`, or by the app (`npm start`, or `npm run web` for the same console in a browser)'

/**
 * Status when the service cannot be reached: still how desk reaches the core, which network and
 * URL it tried, and how to get one running. The text goes to stdout before the one-line error;
 * with --json the same facts are the error's details. Exits 1 like any failed read.
 */
async function unreachable(ctx: CliContext, mode: CliMode, e: DeskError): Promise<DeskError> {
  const { selected, networks } = await ctx.call('networks.list', undefined)
  const name = ctx.string('network') ?? selected
  const n = networks.find((x) => x.name === name)
  const hint =
    n?.kind === 'sandbox' ? SANDBOX_HINT : "check the network's URLs with `desk networks list` (`desk networks set` changes them)"
  if (!ctx.globals.json)
    ctx.io.stdout(
      [modeLine(mode), `network ${name}: the trading service at ${n?.tradingUrl || '(no URL)'} cannot be reached`, hint, ''].join('\n'),
    )
  return new DeskError(e.code, e.message, {
    ...e.details,
    mode: mode.mode,
    pid: mode.pid,
    network: name,
    tradingUrl: n?.tradingUrl ?? null,
    reachable: false,
    hint,
  })
}

/**
 * Runs a status read in the call context of the app's channels (`--network`, when given, names
 * the selected network); a service that cannot be reached becomes the explained error above.
 */
async function statusRead<T>(ctx: CliContext, read: () => Promise<T>): Promise<{ mode: CliMode; value: T }> {
  const { mode } = await ctx.core()
  await ctx.requireSelectedNetwork()
  try {
    return { mode, value: await read() }
  } catch (e) {
    if (isDeskError(e) && UNREACHABLE.has(e.code)) throw await unreachable(ctx, mode, e)
    throw e
  }
}

const show: Command = {
  name: 'show',
  summary: 'balances, credit lines and USD totals of every account, and how desk reaches the core',
  options: { ...NETWORK_OPTION, ...ADDRESS_OPTION },
  async run(ctx) {
    const only = addressesFrom(ctx)
    const { mode, value: o } = await statusRead(ctx, () => ctx.call('portfolio.status', only ? { addresses: only } : {}))
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
    const names = accountNamer(ctx)
    const { value: h } = await statusRead(ctx, () => ctx.call('credit.health', { address }))
    ctx.print(creditLines(h, await names), h)
  },
}

const group: CommandGroup = {
  name: 'status',
  summary: 'portfolio and credit health of your accounts (`desk status` = `desk status show`)',
  commands: [show, credit],
  defaultCommand: 'show',
}
export default group
