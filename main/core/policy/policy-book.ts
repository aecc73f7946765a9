import type { Journal } from '../journal'
import { PolicyEngine, type PolicyNetwork } from './engine'

export interface PolicyBookOptions {
  dataDir: string
  journal: Journal
  now: () => number
  verifyPassphrase(passphrase: string): Promise<boolean>
  /** The operator's own accounts (owner keys in the vault): transfers may go there without the address book. */
  ownAccounts(): string[]
}

/** One policy engine per network name (the policy is per network, not per session). */
export class PolicyBook {
  private readonly engines = new Map<string, PolicyEngine>()

  constructor(private readonly o: PolicyBookOptions) {}

  ownAccounts(): string[] {
    return this.o.ownAccounts()
  }

  for(network: PolicyNetwork): PolicyEngine {
    let e = this.engines.get(network.name)
    if (!e || e.sandbox !== (network.kind === 'sandbox')) {
      e = new PolicyEngine({ ...this.o, network })
      this.engines.set(network.name, e)
    }
    return e
  }
}
