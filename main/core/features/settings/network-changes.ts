import { isConfigured, validateNetwork, type NetworkConfig } from '../../config/networks'
import type { SettingsStore } from '../../config/settings'
import { describeExchange, exchangeIdentity, type PolicyBook } from '../../policy'

/**
 * Adding, changing and removing a network are policy events: a network decides which exchange
 * the desk signs for, so (once a vault exists) each needs the vault passphrase and is journaled.
 * Before the vault exists nothing can be signed and no passphrase can be checked, so a first
 * run may configure its networks freely; the change is journaled all the same. Selecting a
 * network needs no passphrase: it changes no guardrail, since every name for an exchange shares
 * that exchange's policy and the halt is desk-wide (core/policy); it is journaled too.
 */
export interface NetworkChangeDeps {
  settings: SettingsStore
  policy: PolicyBook
  /** True once a vault exists (its passphrase then guards network changes). */
  hasVault(): boolean
}

const hosts = (n: NetworkConfig) => (isConfigured(n) ? describeExchange(exchangeIdentity(n)) : 'not configured')

function changes(before: NetworkConfig, after: NetworkConfig): string {
  const keys = [
    'kind',
    'network',
    'chainId',
    'tradingUrl',
    'wsUrl',
    'earnUrl',
    'infoRatePerSec',
    'tradeRatePerSec',
    'strictLimits',
  ] as const
  const diff = keys.filter((k) => before[k] !== after[k]).map((k) => `${k} ${before[k] ?? 'unset'} -> ${after[k] ?? 'unset'}`)
  return diff.length > 0 ? diff.join(', ') : 'nothing changed'
}

/** Validates (typed `InvalidNetwork` before anything is asked), checks the passphrase, saves, journals, adopts its exchange's policy. */
export async function saveNetwork(d: NetworkChangeDeps, input: unknown, passphrase: string | undefined): Promise<NetworkConfig> {
  const n = validateNetwork(input)
  const before = d.settings.networks().find((x) => x.name === n.name)
  if (d.hasVault()) await d.policy.requirePassphrase(passphrase, `${before ? 'changing' : 'adding'} network "${n.name}"`)
  const saved = d.settings.saveNetwork(n)
  d.policy.record(
    'network.save',
    before
      ? `network "${saved.name}" changed: ${changes(before, saved)}; it talks to ${hosts(saved)}`
      : `network "${saved.name}" added (${saved.kind}): it talks to ${hosts(saved)}`,
    {
      name: saved.name,
      kind: saved.kind,
      chainId: saved.chainId,
      tradingUrl: saved.tradingUrl,
      earnUrl: saved.earnUrl,
      ...(before ? { before: { chainId: before.chainId, tradingUrl: before.tradingUrl, earnUrl: before.earnUrl } } : {}),
    },
  )
  // Adopted now (not at first use): an alias joins its exchange, a new exchange starts strictest.
  if (isConfigured(saved)) d.policy.for(saved)
  return saved
}

export async function removeNetwork(d: NetworkChangeDeps, name: string, passphrase: string | undefined): Promise<void> {
  const n = d.settings.network(name)
  if (d.hasVault()) await d.policy.requirePassphrase(passphrase, `removing network "${n.name}"`)
  d.settings.removeNetwork(n.name)
  d.policy.record('network.remove', `network "${n.name}" removed (it talked to ${hosts(n)}); its exchange's policy is kept`, {
    name: n.name,
    chainId: n.chainId,
    tradingUrl: n.tradingUrl,
    earnUrl: n.earnUrl,
  })
}

export function recordSelect(d: NetworkChangeDeps, from: string, to: NetworkConfig): void {
  if (from === to.name) return
  d.policy.record('network.select', `network "${to.name}" selected (was "${from}"); it talks to ${hosts(to)}`, { from, to: to.name })
}
