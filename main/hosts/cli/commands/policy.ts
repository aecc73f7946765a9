/**
 * `desk policy …`, `desk addresses …`: the operator guardrails main enforces for every host
 * (address book with cooling-off, limits, price bands, halt). Refusals exit non-zero with their
 * code (DestinationNotAllowed, DestinationCoolingOff, LimitExceeded, PriceOutsideBand, WritesHalted).
 */
import { formatDurationWords, formatNumber, formatPercent, formatUsd } from '../../../contract/format'
import type { AddressBookEntryView, PolicyValue, PolicyView } from '../../../contract/types'
import { DeskError } from '../../../contract/errors'
import type { CliContext } from '../context'
import type { Command, CommandGroup } from '../router'
import { when } from '../support/display'

/** Halting cancels orders with the accounts' keys: the core's vault must be unlocked (the app's state when attached). */
async function ensureUnlocked(ctx: CliContext): Promise<void> {
  const state = await ctx.call('app.state', undefined)
  if (!state.vault.unlocked) await ctx.call('vault.unlock', { passphrase: await ctx.passphraseText() })
}

/**
 * A rule's value as the operator reads it: USD one way, percentages, durations; "off" when unset.
 * Asset-unit limits keep their number (the asset is in the rule's name).
 */
export function ruleValue(value: PolicyValue, unit: string): string {
  if (value === null) return 'off'
  if (unit.startsWith('USD')) return formatUsd(value)
  if (unit.startsWith('percent')) return formatPercent(value)
  if (unit === 'ms' && /^[0-9]+$/.test(value)) return formatDurationWords(Number(value))
  return formatNumber(value)
}

/** The unit beside the value, when the value does not already say it. */
const unitNote = (unit: string) =>
  unit.startsWith('USD ') ? unit.slice(4) : unit.startsWith('percent ') ? unit.slice(8) : unit === 'ms' ? '' : unit

function entryLine(e: AddressBookEntryView): string {
  return (
    `${e.label.padEnd(20)} ${e.address}  added ${when(e.addedAt)}  chain ` +
    `${e.chainId.padEnd(8)} ${e.usable ? 'usable' : `cooling off until ${when(e.usableAt)}`}`
  )
}

export function policyLines(p: PolicyView): string[] {
  return [
    `network ${p.network}${p.halted ? `  HALTED since ${when(p.halted.since)}: every write is refused until \`desk resume\`` : ''}`,
    `cooling-off ${formatDurationWords(p.coolingOffMs)}${p.sandboxDefaults ? ' (the sandbox default; real networks default to 24 h)' : ''}`,
    'rules:',
    ...p.rules.map((r) =>
      (
        `  ${r.name.padEnd(30)} ${ruleValue(r.value, r.unit).padEnd(16)} ${unitNote(r.unit)}` +
        `${r.pending ? `  -> ${ruleValue(r.pending.value, r.unit)} from ${when(r.pending.effectiveAt)}` : ''}`
      ).trimEnd(),
    ),
    ...(p.events.length > 0 ? ['recent changes:', ...p.events.slice(0, 5).map((e) => `  ${when(e.at)} ${e.kind} ${e.summary}`)] : []),
    `address book (${p.addresses.length}):`,
    ...p.addresses.map((e) => `  ${entryLine(e)}`),
  ]
}

const show: Command = {
  name: 'show',
  summary: 'rules in force, pending loosenings with their effective time, halt state, address book',
  async run(ctx) {
    const p = await ctx.call('policy.show', undefined)
    ctx.print(policyLines(p), p)
  },
}

const set: Command = {
  name: 'set',
  summary:
    'set a rule (transfer-limit-usd, withdraw-limit-usd, max-order-usd, price-band, cooling-off, ...); "off" turns it off. ' +
    'Loosening asks for the passphrase and waits out the cooling-off',
  positionals: ['NAME', 'VALUE'],
  async run(ctx) {
    const [name, raw] = ctx.positionals as [string, string]
    const value = raw === 'off' ? null : raw
    let p: PolicyView
    try {
      p = await ctx.call('policy.set', { name, value })
    } catch (e) {
      if (!(e instanceof DeskError) || e.code !== 'PassphraseRequired') throw e
      p = await ctx.call('policy.set', { name, value, passphrase: await ctx.passphraseUnlocking() })
    }
    const rule = p.rules.find((r) => r.name === name)
    const shown = (v: PolicyValue) => (rule ? ruleValue(v, rule.unit) : (v ?? 'off'))
    ctx.print(
      rule?.pending
        ? `${name}: ${shown(rule.value)} now; ${shown(rule.pending.value)} from ${when(rule.pending.effectiveAt)} (after the cooling-off)`
        : `${name}: ${shown(rule ? rule.value : value)} (in force now)`,
      p,
    )
  },
}

const policy: CommandGroup = {
  name: 'policy',
  summary: 'operator guardrails: show and change the rules main enforces',
  commands: [show, set],
  defaultCommand: 'show',
}
export default policy

const list: Command = {
  name: 'list',
  summary: 'the address book of the selected network (withdrawals go only to these; transfers also to own accounts)',
  async run(ctx) {
    const entries = await ctx.call('addresses.list', undefined)
    ctx.print(entries.length === 0 ? 'the address book is empty' : entries.map(entryLine), entries)
  },
}

const add: Command = {
  name: 'add',
  summary: 'add (or edit) an entry: LABEL ADDRESS (EIP-55 checked) --chain ID; usable after the cooling-off; asks for the passphrase',
  positionals: ['LABEL', 'ADDRESS'],
  options: { chain: { type: 'string', valueName: 'ID', description: 'destination chain id (required)' } },
  async run(ctx) {
    const [label, address] = ctx.positionals as [string, string]
    const chainId = ctx.string('chain')
    if (!chainId) throw new DeskError('Usage', '--chain ID is required')
    const e = await ctx.call('addresses.add', { label, address, chainId, passphrase: await ctx.passphraseUnlocking() })
    ctx.print(entryLine(e), e)
  },
}

const remove: Command = {
  name: 'remove',
  summary: 'remove the entry LABEL; asks for the passphrase',
  positionals: ['LABEL'],
  async run(ctx) {
    const r = (await ctx.call('addresses.remove', { label: ctx.positionals[0]!, passphrase: await ctx.passphraseUnlocking() })) as {
      removed: string
    }
    ctx.print(`removed ${r.removed}`, r)
  },
}

export const addresses: CommandGroup = {
  name: 'addresses',
  summary: 'the destination address book (cooling-off on new entries)',
  commands: [list, add, remove],
  defaultCommand: 'list',
}

const haltNow: Command = {
  name: 'now',
  summary: 'cancel every open order of every account on the network, verify none is left, and refuse every write until `desk resume`',
  async run(ctx) {
    await ctx.confirmYes('Halt: cancel every open order of every account and refuse all writes until resume?')
    await ensureUnlocked(ctx)
    const r = await ctx.call('policy.halt', undefined)
    const lines = [
      `network ${r.network} halted since ${when(r.halted.since)}`,
      ...r.accounts.map(
        (a) =>
          `  ${(a.label || a.account).padEnd(24)} ` +
          `${a.verifiedZero ? 'no open orders (verified)' : a.error ? `${a.error.code}: ${a.error.message}` : `${a.remaining.length} order(s) still open`}`,
      ),
    ]
    ctx.print(lines, r)
    if (r.accounts.some((a) => !a.verifiedZero)) ctx.fail(1)
  },
}

export const halt: CommandGroup = {
  name: 'halt',
  summary: 'kill switch: cancel all open orders and refuse writes until resume',
  commands: [haltNow],
  defaultCommand: 'now',
}

const resumeNow: Command = {
  name: 'now',
  summary: 'lift the halt (asks for the passphrase)',
  async run(ctx) {
    const p = await ctx.call('policy.resume', { passphrase: await ctx.passphraseUnlocking() })
    ctx.print(`network ${p.network}: writes allowed again`, p)
  },
}

export const resume: CommandGroup = { name: 'resume', summary: 'lift the halt (passphrase)', commands: [resumeNow], defaultCommand: 'now' }
