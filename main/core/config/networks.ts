import * as v from 'valibot'
import { DeskError } from '../errors/desk-error'
import { CHAIN_IDS } from '../wire/chains'

/**
 * Networks the desk can talk to. A network is its trading base URL, WebSocket URL, earn pool
 * URL, `network` name and signing chain id, with its own rate budgets. The spec's hosts are
 * placeholders: testnet and mainnet ship with no URLs ("not configured" is a state the UI
 * shows, not a crash) until the operator enters them. The sandbox is the default.
 */
export type NetworkKind = 'sandbox' | 'testnet' | 'mainnet' | 'custom'

/** The spec's default per-IP budget: 1 request/s for /info and, independently, for /trade. */
export const DEFAULT_RATE_PER_SEC = 1

/**
 * Where the sandbox listens when the desktop app or `npm run sandbox` starts it, so `desk` finds
 * it. The sandbox serves the earn pool on the trading port unless told otherwise.
 */
export const SANDBOX_DEFAULT_PORTS = { trading: 47_100, earn: 47_100 } as const

const NAME_RE = /^[a-z0-9][a-z0-9-]{0,39}$/
const httpUrl = v.pipe(v.string(), v.maxLength(400), v.regex(/^https?:\/\/[^\s/]+(\/[^\s]*)?$/, 'must be an http(s) URL'))
const wsUrl = v.pipe(v.string(), v.maxLength(400), v.regex(/^wss?:\/\/[^\s/]+(\/[^\s]*)?$/, 'must be a ws(s) URL'))
const rate = v.pipe(v.number(), v.minValue(0.1), v.maxValue(1000))

export const NetworkConfigSchema = v.object({
  name: v.pipe(v.string(), v.regex(NAME_RE, 'lowercase letters, digits and dashes, at most 40')),
  kind: v.picklist(['sandbox', 'testnet', 'mainnet', 'custom']),
  /** The `network` name of the environment (`mainnet`, `testnet`, ...). */
  network: v.pipe(v.string(), v.minLength(1), v.maxLength(40)),
  chainId: v.pipe(v.number(), v.safeInteger(), v.minValue(1), v.maxValue(2 ** 32 - 1)),
  tradingUrl: v.nullable(httpUrl),
  wsUrl: v.nullable(wsUrl),
  earnUrl: v.nullable(httpUrl),
  infoRatePerSec: rate,
  tradeRatePerSec: rate,
  /** Strict limits (one socket, 10 subscriptions, 30 new connections a minute); only the sandbox may turn them off. Absent: the default. */
  strictLimits: v.optional(v.boolean()),
})
export type NetworkConfig = v.InferOutput<typeof NetworkConfigSchema>

/**
 * Whether the desk keeps to every limit the service counts (trading-api §8), as if enforced:
 * always on a real network (the day the service enforces them, a desk needing 40 sockets goes
 * dark); on the sandbox too unless the operator turned it off there. The one place this rule lives.
 */
export function strictLimitsFor(n: Pick<NetworkConfig, 'kind' | 'strictLimits'>): boolean {
  return n.kind !== 'sandbox' || n.strictLimits !== false
}

/** A network whose three URLs are known: what the clients are built from. */
export interface ResolvedNetwork extends NetworkConfig {
  tradingUrl: string
  wsUrl: string
  earnUrl: string
}

export function sandboxNetwork(ports: { trading: number; earn: number } = SANDBOX_DEFAULT_PORTS): NetworkConfig {
  return {
    name: 'sandbox',
    kind: 'sandbox',
    network: 'sandbox',
    chainId: CHAIN_IDS.sandbox,
    tradingUrl: `http://127.0.0.1:${ports.trading}`,
    wsUrl: `ws://127.0.0.1:${ports.trading}/ws`,
    earnUrl: `http://127.0.0.1:${ports.earn}`,
    infoRatePerSec: DEFAULT_RATE_PER_SEC,
    tradeRatePerSec: DEFAULT_RATE_PER_SEC,
  }
}

/** The built-in networks as shipped: the sandbox ready, testnet and mainnet waiting for URLs. */
export function builtinNetworks(): NetworkConfig[] {
  const unset = {
    tradingUrl: null,
    wsUrl: null,
    earnUrl: null,
    infoRatePerSec: DEFAULT_RATE_PER_SEC,
    tradeRatePerSec: DEFAULT_RATE_PER_SEC,
  }
  return [
    sandboxNetwork(),
    { name: 'testnet', kind: 'testnet', network: 'testnet', chainId: CHAIN_IDS.testnet, ...unset },
    { name: 'mainnet', kind: 'mainnet', network: 'mainnet', chainId: CHAIN_IDS.mainnet, ...unset },
  ]
}

/** Signing chain ids the built-in kinds must keep: signing for the wrong one is a rejected write. */
export const FIXED_CHAIN_IDS: Partial<Record<NetworkKind, number>> = {
  sandbox: CHAIN_IDS.sandbox,
  testnet: CHAIN_IDS.testnet,
  mainnet: CHAIN_IDS.mainnet,
}

export function isConfigured(n: NetworkConfig): n is ResolvedNetwork {
  return n.tradingUrl !== null && n.wsUrl !== null && n.earnUrl !== null
}

/** The network ready for clients, or `NetworkNotConfigured` naming what is missing. */
export function requireConfigured(n: NetworkConfig): ResolvedNetwork {
  if (isConfigured(n)) return n
  const missing = (['tradingUrl', 'wsUrl', 'earnUrl'] as const).filter((k) => n[k] === null)
  throw new DeskError(
    'NetworkNotConfigured',
    `network "${n.name}" has no ${missing.join(', ')} yet; set them with \`desk networks set ${n.name} ...\` or in Settings`,
    {
      network: n.name,
      missing: missing.join(','),
    },
  )
}

/**
 * Checks a network entered by the operator: valid fields, built-in kinds keep their chain id,
 * and the name of a built-in is reserved for its kind.
 */
export function validateNetwork(input: unknown): NetworkConfig {
  const r = v.safeParse(NetworkConfigSchema, input)
  if (!r.success) {
    const i = r.issues[0]
    const path = v.getDotPath(i) ?? ''
    throw new DeskError('InvalidNetwork', `network ${path ? path + ' ' : ''}${i.message}`, { path })
  }
  const n = r.output
  const fixed = FIXED_CHAIN_IDS[n.kind]
  if (fixed !== undefined && n.chainId !== fixed) {
    throw new DeskError('InvalidNetwork', `the ${n.kind} network signs with chain id ${fixed}, not ${n.chainId}`, { path: 'chainId' })
  }
  if (n.strictLimits === false && n.kind !== 'sandbox') {
    // Only the sandbox may stream past the counted limits: a real service may enforce them any day.
    throw new DeskError(
      'InvalidNetwork',
      `strict limits stay on for the ${n.kind} network "${n.name}"; only the sandbox can turn them off`,
      { path: 'strictLimits' },
    )
  }
  const builtinName = builtinNetworks().find((b) => b.name === n.name)
  if (builtinName && builtinName.kind !== n.kind) {
    throw new DeskError('InvalidNetwork', `"${n.name}" is the name of the built-in ${builtinName.kind} network`, { path: 'name' })
  }
  return n
}

/** What the UI shows (contract `NetworkView`): unset URLs are empty strings with `configured` false. */
export function networkView(n: NetworkConfig) {
  return {
    name: n.name,
    kind: n.kind,
    chainId: n.chainId,
    tradingUrl: n.tradingUrl ?? '',
    wsUrl: n.wsUrl ?? '',
    earnUrl: n.earnUrl ?? '',
    infoRatePerSec: n.infoRatePerSec,
    tradeRatePerSec: n.tradeRatePerSec,
    strictLimits: strictLimitsFor(n),
    configured: isConfigured(n),
  }
}

/** A running sandbox as the composition root hands it back (URLs actually bound). */
export interface SandboxHandle {
  tradingUrl: string
  wsUrl: string
  earnUrl: string
  chainId: number
  stop(): Promise<void>
}

/**
 * Starts the sandbox in-process. The composition root wires this to `startSandbox` from
 * `sandbox/index.ts` (the core does not import the sandbox), binding the configured ports
 * so `desk` and the app see the same exchange.
 */
export type SandboxStarter = (network: NetworkConfig) => Promise<SandboxHandle>

export interface ConnectedNetwork {
  network: ResolvedNetwork
  /** True when this process started the sandbox (and `close` stops it). */
  startedSandbox: boolean
  close(): Promise<void>
}

/**
 * Makes a network usable: for the sandbox with a starter, starts it and adopts the URLs it
 * bound; otherwise requires the configured URLs.
 */
export async function connectNetwork(n: NetworkConfig, opts: { startSandbox?: SandboxStarter } = {}): Promise<ConnectedNetwork> {
  if (n.kind === 'sandbox' && opts.startSandbox) {
    const h = await opts.startSandbox(n)
    if (h.chainId !== n.chainId) {
      await h.stop()
      throw new DeskError('NetworkChainMismatch', `the sandbox signs with chain id ${h.chainId}, the network expects ${n.chainId}`)
    }
    return { network: { ...n, tradingUrl: h.tradingUrl, wsUrl: h.wsUrl, earnUrl: h.earnUrl }, startedSandbox: true, close: () => h.stop() }
  }
  return { network: requireConfigured(n), startedSandbox: false, close: async () => {} }
}

/**
 * Listen options for starting the sandbox on a network's configured loopback URLs (so `desk`
 * and the app reach the same exchange): the trading port, and the earn port when it differs.
 */
export function sandboxListenOptions(n: NetworkConfig): { port: number; earnPort?: number } {
  const portOf = (u: string | null, fallback: number): number => {
    if (u === null) return fallback
    const url = new URL(u)
    if (url.hostname !== '127.0.0.1' && url.hostname !== 'localhost') {
      throw new DeskError('InvalidNetwork', `the sandbox listens on 127.0.0.1 only; ${u} is not a loopback URL`, { path: 'tradingUrl' })
    }
    return url.port === '' ? fallback : Number(url.port)
  }
  const port = portOf(n.tradingUrl, SANDBOX_DEFAULT_PORTS.trading)
  const earnPort = portOf(n.earnUrl, port)
  return earnPort === port ? { port } : { port, earnPort }
}
