import type { AccountView, Address } from '../../../contract/types'
import type { AccountMetaStore } from './account-meta'
import type { VaultHolder } from '../vault'

/** An account the desk knows: its address, the operator's label and group, and whether a key is held. */
export interface AccountRef {
  address: Address
  label: string
  group: string
  hasKey: boolean
}

type Identity = Pick<AccountView, 'kind' | 'status' | 'accountIndex'>

/**
 * The vault's accounts as the screens name them (label, group), with what the exchange last
 * told us about each (kind, activation, index). Identities are per network session.
 */
export class AccountDirectory {
  private readonly identities = new Map<string, Identity>()

  constructor(
    private readonly vault: VaultHolder,
    readonly meta: AccountMetaStore,
  ) {}

  refs(): AccountRef[] {
    const v = this.vault.current
    if (!v) return []
    return v.listAccounts().map((a) => ({
      address: a.address.toLowerCase() as Address,
      label: a.label,
      group: this.meta.group(a.address),
      hasKey: !a.watchOnly,
    }))
  }

  ref(address: string): AccountRef | undefined {
    const a = address.toLowerCase()
    return this.refs().find((r) => r.address === a)
  }

  /** Remembers what the exchange said about an account; true when what it streams changed (its kind, or whether it exists). */
  remember(address: string, id: Identity): boolean {
    const key = address.toLowerCase()
    const prev = this.identities.get(key)
    const changed = prev?.kind !== id.kind || (prev.status === 'none') !== (id.status === 'none')
    this.identities.set(key, { kind: id.kind, status: id.status, accountIndex: id.accountIndex })
    return changed
  }

  forget(): void {
    this.identities.clear()
  }

  view(ref: AccountRef): AccountView {
    const id = this.identities.get(ref.address)
    return { ...ref, kind: id?.kind ?? 'unknown', status: id?.status ?? 'unknown', accountIndex: id?.accountIndex ?? null }
  }

  views(): AccountView[] {
    return this.refs().map((r) => this.view(r))
  }

  viewOf(address: string): AccountView | undefined {
    const r = this.ref(address)
    return r ? this.view(r) : undefined
  }

  label(address: string): string {
    return this.ref(address)?.label ?? ''
  }

  /** What the stream pool needs to subscribe each account's channels. */
  /**
   * The accounts to stream and their kinds. An account the exchange says does not exist
   * (status none) is not streamed: it has nothing to send, and its four subscriptions would
   * cost sockets; the overview re-reads its status now and then, and an activation re-plans.
   */
  streamTargets(): { address: string; kind: 'balance' | 'credit' | 'unknown' }[] {
    return this.refs()
      .filter((r) => this.identities.get(r.address)?.status !== 'none')
      .map((r) => ({ address: r.address, kind: this.identities.get(r.address)?.kind ?? 'unknown' }))
  }

  /** Kinds from the last run's cache, for accounts not read yet this session (fewer sockets at start). */
  seed(address: string, id: Identity): void {
    const key = address.toLowerCase()
    if (!this.identities.has(key) && id.kind !== 'unknown')
      this.identities.set(key, { kind: id.kind, status: id.status, accountIndex: id.accountIndex })
  }
}
