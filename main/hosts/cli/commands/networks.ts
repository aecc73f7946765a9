/** `desk networks …`: list, select and edit the networks (shared settings file with the app). */
import { networkView, type NetworkConfig } from '../../../core/config/networks'
import { SettingsStore } from '../../../core/config/settings'
import type { CliContext } from '../context'
import { UsageError, type Command, type CommandGroup, type OptionSpec } from '../router'

function describe(n: NetworkConfig, selected: boolean): string {
  const v = networkView(n)
  const state = v.configured ? '' : '  (not configured)'
  return [
    `${selected ? '*' : ' '} ${n.name.padEnd(12)} ${n.kind.padEnd(8)} chain ${String(n.chainId).padEnd(8)} info ${n.infoRatePerSec}/s  trade ${n.tradeRatePerSec}/s${state}`,
    `    trading ${n.tradingUrl ?? '-'}`,
    `    ws      ${n.wsUrl ?? '-'}`,
    `    earn    ${n.earnUrl ?? '-'}`,
  ].join('\n')
}

const list: Command = {
  name: 'list',
  summary: 'list networks (* marks the selected one)',
  async run(ctx) {
    const store = new SettingsStore(ctx.dataDir)
    const s = store.load()
    ctx.print(
      s.networks.map((n) => describe(n, n.name === s.selectedNetwork)),
      { selected: s.selectedNetwork, networks: s.networks.map((n) => ({ ...networkView(n), network: n.network })) },
    )
  },
}

const URL_OPTS: Record<string, OptionSpec> = {
  kind: { type: 'string', valueName: 'KIND', description: 'custom (new networks), or the built-in kind' },
  network: { type: 'string', valueName: 'NAME', description: 'the environment\'s `network` name (default: the network name)' },
  'chain-id': { type: 'string', valueName: 'ID', description: 'signing chain id (custom networks)' },
  'trading-url': { type: 'string', valueName: 'URL', description: 'trading service base URL (/info, /trade)' },
  'ws-url': { type: 'string', valueName: 'URL', description: 'WebSocket URL (…/ws)' },
  'earn-url': { type: 'string', valueName: 'URL', description: 'earn pool base URL' },
  'info-rate': { type: 'string', valueName: 'N', description: '/info requests per second (default 1)' },
  'trade-rate': { type: 'string', valueName: 'N', description: '/trade requests per second (default 1)' },
}

function num(ctx: CliContext, name: string): number | undefined {
  const raw = ctx.string(name)
  if (raw === undefined) return undefined
  if (!/^[0-9]+(\.[0-9]+)?$/.test(raw)) throw new UsageError(`--${name} must be a number`)
  return Number(raw)
}

const set: Command = {
  name: 'set',
  summary: 'add a custom network or change one (URLs, rate budgets)',
  positionals: ['NAME'],
  options: URL_OPTS,
  async run(ctx) {
    const store = new SettingsStore(ctx.dataDir)
    const name = ctx.positionals[0]!
    const existing = store.networks().find((n) => n.name === name)
    const kind = ctx.string('kind') ?? existing?.kind ?? 'custom'
    const chainId = num(ctx, 'chain-id') ?? existing?.chainId
    if (chainId === undefined) throw new UsageError('a new network needs --chain-id')
    const pick = (opt: string, prev: string | null | undefined) => (ctx.string(opt) === '' ? null : (ctx.string(opt) ?? prev ?? null))
    const saved = store.saveNetwork({
      name,
      kind,
      network: ctx.string('network') ?? existing?.network ?? name,
      chainId,
      tradingUrl: pick('trading-url', existing?.tradingUrl),
      wsUrl: pick('ws-url', existing?.wsUrl),
      earnUrl: pick('earn-url', existing?.earnUrl),
      infoRatePerSec: num(ctx, 'info-rate') ?? existing?.infoRatePerSec ?? 1,
      tradeRatePerSec: num(ctx, 'trade-rate') ?? existing?.tradeRatePerSec ?? 1,
    })
    ctx.print(describe(saved, store.load().selectedNetwork === saved.name), { ...networkView(saved), network: saved.network })
  },
}

const select: Command = {
  name: 'select',
  summary: 'make NAME the network the app and desk use by default',
  positionals: ['NAME'],
  async run(ctx) {
    const n = new SettingsStore(ctx.dataDir).select(ctx.positionals[0]!)
    ctx.print(`selected ${n.name}`, { selected: n.name })
  },
}

const remove: Command = {
  name: 'remove',
  summary: 'remove a custom network',
  positionals: ['NAME'],
  async run(ctx) {
    new SettingsStore(ctx.dataDir).removeNetwork(ctx.positionals[0]!)
    ctx.print(`removed ${ctx.positionals[0]!}`, { removed: ctx.positionals[0]! })
  },
}

const group: CommandGroup = { name: 'networks', summary: 'list, select and edit networks', commands: [list, set, select, remove] }
export default group
