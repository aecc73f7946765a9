/**
 * A vault change that concerns custody (a key exported, added or removed, the passphrase changed)
 * runs through the guard the composition installs. Alone, a desk applies it at once; on a desk
 * bound to a team, team mode judges it under the team policy and records it in the team chain
 * (features/team/vault-changes.ts). The vault feature names the change; it does not know teams.
 */
export type CustodyChangeKind = 'key_export' | 'key_add' | 'key_remove' | 'vault_passphrase'

export interface CustodyChange {
  kind: CustodyChangeKind
  /** the account whose key it is (lower-case); null for the passphrase */
  account: string | null
  /** what the operator asked for, in words (the chain's title) */
  title: string
}

export interface CustodyGuard {
  /** Runs `apply` when the change is allowed (recording it where a team asks); throws typed when it is not. */
  run<T>(change: CustodyChange, apply: () => Promise<T>): Promise<T>
}

/** A desk on its own: every change applies at once. */
export const SOLO_CUSTODY: CustodyGuard = { run: (_change, apply) => apply() }
