/** `desk journal …`: the local record of every write: list, show, export, reconcile. */
import { writeFileSync } from 'node:fs'
import { DeskError } from '../../../contract/errors'
import type { ChannelArgs } from '../../../contract/channels'
import { JOURNAL_RECORD_STATES, type JournalRecordState, type JournalRecordView } from '../../../contract/types'
import type { CliContext } from '../context'
import { NETWORK_OPTION } from '../desk-write'
import { accountNamer, when, type AccountNamer } from '../support/display'
import type { Command, CommandGroup, OptionSpec } from '../router'

const s = (valueName: string, description: string): OptionSpec => ({ type: 'string', valueName, description })
const FILTERS: Record<string, OptionSpec> = {
  network: s('NAME', 'only this network'),
  account: s('ACCOUNT', 'only this account (label or address)'),
  type: s('TYPES', 'action types, comma-separated (settle,repay,order,createWithdrawal,...)'),
  state: s('STATES', `states, comma-separated (${JOURNAL_RECORD_STATES.join(', ')})`),
  since: s('TIME', 'created at or after (ISO time or Unix ms)'),
  until: s('TIME', 'created at or before (ISO time or Unix ms)'),
  limit: s('N', 'at most N entries (default 50 for list)'),
}

function time(v: string | undefined, name: string): number | undefined {
  if (v === undefined) return undefined
  const n = /^[0-9]+$/.test(v) ? Number(v) : Date.parse(v)
  if (!Number.isSafeInteger(n)) throw new DeskError('Usage', `--${name} must be an ISO time or Unix milliseconds`)
  return n
}

type Filter = ChannelArgs<'journal.records'>['filter']

const isState = (x: string): x is JournalRecordState => (JOURNAL_RECORD_STATES as readonly string[]).includes(x)

function filter(ctx: CliContext, defaultLimit?: number): Filter {
  const f: Filter = {}
  const net = ctx.string('network')
  if (net) f.network = net
  const acct = ctx.string('account')
  if (acct) f.account = acct
  const types = ctx.string('type')
  if (types)
    f.actionType = types
      .split(',')
      .map((x) => x.trim())
      .filter(Boolean)
  const states = ctx.string('state')
  if (states) {
    const list: JournalRecordState[] = []
    for (const st of states.split(',').map((x) => x.trim())) {
      if (!isState(st)) throw new DeskError('Usage', `unknown state "${st}" (${JOURNAL_RECORD_STATES.join(', ')})`)
      list.push(st)
    }
    f.state = list
  }
  const since = time(ctx.string('since'), 'since')
  if (since !== undefined) f.since = since
  const until = time(ctx.string('until'), 'until')
  if (until !== undefined) f.until = until
  const limit = ctx.string('limit')
  if (limit !== undefined) {
    if (!/^[1-9][0-9]{0,5}$/.test(limit)) throw new DeskError('Usage', '--limit must be a positive integer')
    f.limit = Number(limit)
  } else if (defaultLimit) f.limit = defaultLimit
  return f
}

/** One line per entry: number, time in the operator's zone with its age, network, action, state, account by name. */
export function journalListLines(rows: readonly JournalRecordView[], name: AccountNamer, now = Date.now()): string[] {
  if (rows.length === 0) return ['(no journal entries match)']
  return rows.map(
    (r) =>
      `#${r.id} ${when(r.createdAt, now)} ${r.network} ${r.actionType.padEnd(16)} ` +
      `${r.state.padEnd(10)} ${r.finalStatus ?? ''}${r.code ? ` [${r.code}]` : ''}  ` +
      `${name(r.account)}  ${r.summary}`,
  )
}

const list: Command = {
  name: 'list',
  summary: 'journaled writes, newest first, with filters',
  options: FILTERS,
  async run(ctx) {
    const names = accountNamer(ctx)
    const rows = await ctx.call('journal.records', { filter: filter(ctx, 50) })
    ctx.print(journalListLines(rows, await names), rows)
  },
}

const show: Command = {
  name: 'show',
  summary: 'one entry with its exact signed body and state history',
  positionals: ['ID'],
  async run(ctx) {
    const id = Number(ctx.positionals[0])
    if (!Number.isSafeInteger(id) || id < 1) throw new DeskError('Usage', 'ID must be a journal entry number')
    const names = accountNamer(ctx)
    const e = await ctx.call('journal.record', { id })
    const name = await names
    ctx.print(
      [
        `#${e.id} ${e.actionType} ${e.state}${e.finalStatus ? ` (${e.finalStatus})` : ''}${e.code ? ` [${e.code}]` : ''}`,
        `created ${when(e.createdAt)}`,
        `key ${e.key}  nonce ${e.nonce ?? '-'}  signer ${name(e.signer)}  account ${name(e.account)}`,
        `tx ${e.txHash ?? '-'}  trace ${e.traceId ?? '-'}  attempts ${e.attempts}`,
        ...(e.proposalId ? [`team proposal ${e.proposalId} (desk team show ${e.proposalId})`] : []),
        `body ${e.body}`,
        ...e.history.map(
          (h) =>
            `  ${when(h.at)} ${h.state}${h.finalStatus ? ` ${h.finalStatus}` : ''}${h.code ? ` [${h.code}]` : ''}${h.note ? ` ${h.note}` : ''}`,
        ),
      ],
      e,
    )
  },
}

const exportCmd: Command = {
  name: 'export',
  summary: 'export entries as CSV or JSON (--format), to --out FILE or stdout',
  options: { ...FILTERS, format: s('csv|json', 'output format (default csv)'), out: s('FILE', 'write to FILE instead of stdout') },
  async run(ctx) {
    const format = ctx.string('format') ?? 'csv'
    if (format !== 'csv' && format !== 'json') throw new DeskError('Usage', '--format must be csv or json')
    const { content } = await ctx.call('journal.records.export', { filter: filter(ctx), format })
    const out = ctx.string('out')
    if (out) {
      writeFileSync(out, content, { mode: 0o600 })
      ctx.print(`wrote ${out}`, { file: out, format })
    } else ctx.io.stdout(content)
  },
}

const reconcile: Command = {
  name: 'reconcile',
  summary: 'resolve unresolved entries of a network (by cloid / operation id) until final or --passes',
  options: { ...NETWORK_OPTION, passes: s('N', 'at most N passes, 1 s apart (default 10)') },
  async run(ctx) {
    const passes = Number(ctx.string('passes') ?? '10')
    if (!Number.isSafeInteger(passes) || passes < 1 || passes > 1000) throw new DeskError('Usage', '--passes must be 1..1000')
    await ctx.requireSelectedNetwork()
    const { unresolved } = await ctx.call('journal.reconcile', { passes })
    ctx.print(
      unresolved.length === 0
        ? 'every entry is final'
        : [`${unresolved.length} still unresolved:`, ...unresolved.map((u) => `  #${u.id} ${u.actionType} ${u.state} ${u.key}`)],
      { unresolved },
    )
    if (unresolved.length > 0) ctx.fail(1)
  },
}

const ack: Command = {
  name: 'ack',
  summary: 'acknowledge an UNRESOLVED write after checking it on the exchange (journaled; frees its cloid for a new attempt)',
  positionals: ['ID'],
  options: { note: s('TEXT', 'what you checked and found (required)') },
  async run(ctx) {
    const note = ctx.string('note')
    if (!note) throw new DeskError('Usage', '--note TEXT is required: say what you checked on the exchange')
    const v = await ctx.call('journal.acknowledge', { id: ctx.positionals[0]!, note })
    ctx.print(
      `#${v.id} ${v.actionType} ${v.cloid}: acknowledged (${v.outcome}); a new attempt needs a new cloid or the same one re-signed by you`,
      v,
    )
  },
}

const group: CommandGroup = {
  name: 'journal',
  summary: 'the local record of every write: list, show, export, reconcile, ack',
  commands: [list, show, exportCmd, reconcile, ack],
}
export default group
