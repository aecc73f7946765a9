/** `desk networks …`: list, select and edit the networks (shared settings file with the app). */
import type { ChannelArgs } from '../../../contract/channels'
import type { NetworkListing } from '../../../contract/types'
import type { CliContext } from '../context'
import { UsageError, type Command, type CommandGroup, type OptionSpec } from '../router'

/** A network as the core lists it: the view (unset URLs are '') and its `network` name. */
function describe(n: NetworkListing, selected: boolean): string {
  const state = n.configured ? '' : '  (not configured)'
  return [
    `${selected ? '*' : ' '} ${n.name.padEnd(12)} ${n.kind.padEnd(8)} chain ` +
      `${String(n.chainId).padEnd(8)} info ${n.infoRatePerSec}/s  trade ` +
      `${n.tradeRatePerSec}/s  strict limits ${n.strictLimits ? 'on' : 'off'}${state}`,
    `    trading ${n.tradingUrl || '-'}`,
    `    ws      ${n.wsUrl || '-'}`,
    `    earn    ${n.earnUrl || '-'}`,
  ].join('\n')
}

function listed(ctx: CliContext): Promise<{ selected: string; networks: NetworkListing[] }> {
  return ctx.call('networks.list', undefined)
}

/** Once a vault exists, adding, changing or removing a network is a policy change: the core wants the passphrase. */
async function passphraseArg(ctx: CliContext): Promise<{ passphrase?: string }> {
  const state = await ctx.call('app.state', undefined)
  return state.vault.exists ? { passphrase: await ctx.passphraseText() } : {}
}

const list: Command = {
  name: 'list',
  summary: 'list networks (* marks the selected one)',
  async run(ctx) {
    const r = await listed(ctx)
    ctx.print(
      r.networks.map((n) => describe(n, n.name === r.selected)),
      r,
    )
  },
}

const URL_OPTS: Record<string, OptionSpec> = {
  kind: { type: 'string', valueName: 'KIND', description: 'custom (new networks), or the built-in kind' },
  network: { type: 'string', valueName: 'NAME', description: "the environment's `network` name (default: the network name)" },
  'chain-id': { type: 'string', valueName: 'ID', description: 'signing chain id (custom networks)' },
  'trading-url': { type: 'string', valueName: 'URL', description: 'trading service base URL (/info, /trade)' },
  'ws-url': { type: 'string', valueName: 'URL', description: 'WebSocket URL (…/ws)' },
  'earn-url': { type: 'string', valueName: 'URL', description: 'earn pool base URL' },
  'info-rate': { type: 'string', valueName: 'N', description: '/info requests per second (default 1)' },
  'trade-rate': { type: 'string', valueName: 'N', description: '/trade requests per second (default 1)' },
  'strict-limits': {
    type: 'string',
    valueName: 'on|off',
    description: 'keep to every limit the service counts (one connection); only the sandbox can turn it off',
  },
}

function num(ctx: CliContext, name: string): number | undefined {
  const raw = ctx.string(name)
  if (raw === undefined) return undefined
  if (!/^[0-9]+(\.[0-9]+)?$/.test(raw)) throw new UsageError(`--${name} must be a number`)
  return Number(raw)
}

const set: Command = {
  name: 'set',
  summary: 'add a custom network or change one (URLs, rate budgets, strict limits on the sandbox)',
  positionals: ['NAME'],
  options: URL_OPTS,
  async run(ctx) {
    const name = ctx.positionals[0]!
    const before = await listed(ctx)
    const existing = before.networks.find((n) => n.name === name)
    const chainId = num(ctx, 'chain-id') ?? existing?.chainId
    if (chainId === undefined) throw new UsageError('a new network needs --chain-id')
    const args: ChannelArgs<'networks.update'> = { name, chainId }
    // An absent option keeps the current value ('' clears a URL).
    const put = (key: 'kind' | 'network' | 'tradingUrl' | 'wsUrl' | 'earnUrl', opt: string) => {
      const v = ctx.string(opt)
      if (v !== undefined) args[key] = v
    }
    put('kind', 'kind')
    put('network', 'network')
    put('tradingUrl', 'trading-url')
    put('wsUrl', 'ws-url')
    put('earnUrl', 'earn-url')
    const infoRate = num(ctx, 'info-rate')
    if (infoRate !== undefined) args.infoRatePerSec = infoRate
    const tradeRate = num(ctx, 'trade-rate')
    if (tradeRate !== undefined) args.tradeRatePerSec = tradeRate
    const strict = ctx.string('strict-limits')
    if (strict !== undefined) {
      if (strict !== 'on' && strict !== 'off') throw new UsageError('--strict-limits must be on or off')
      args.strictLimits = strict === 'on'
    }
    const saved = await ctx.call('networks.update', { ...args, ...(await passphraseArg(ctx)) })
    ctx.print(describe(saved, before.selected === saved.name), saved)
  },
}

const select: Command = {
  name: 'select',
  summary: 'make NAME the network the app and desk use by default',
  positionals: ['NAME'],
  async run(ctx) {
    const n = await ctx.call('networks.select', { name: ctx.positionals[0]! })
    ctx.print(`selected ${n.name}`, { selected: n.name })
  },
}

const remove: Command = {
  name: 'remove',
  summary: 'remove a custom network',
  positionals: ['NAME'],
  async run(ctx) {
    await ctx.call('networks.remove', { name: ctx.positionals[0]!, ...(await passphraseArg(ctx)) })
    ctx.print(`removed ${ctx.positionals[0]!}`, { removed: ctx.positionals[0]! })
  },
}

const group: CommandGroup = { name: 'networks', summary: 'list, select and edit networks', commands: [list, set, select, remove] }
export default group
