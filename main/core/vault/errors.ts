import { DeskError, type DeskErrorDetails } from '../errors/desk-error'

/**
 * Every failure of key custody. Codes are stable strings the hosts can match on; messages are
 * sentences for the operator and never contain key material or a passphrase.
 */
export type VaultErrorCode =
  | 'VaultNotFound'
  | 'VaultExists'
  | 'VaultCorrupt'
  | 'VaultLocked'
  | 'VaultChangedOnDisk'
  | 'VaultSelfTestFailed'
  | 'VaultWriteFailed'
  | 'PassphraseIncorrect'
  | 'PassphraseWeak'
  | 'InvalidHex'
  | 'InvalidPrivateKey'
  | 'InvalidAddress'
  | 'InvalidLabel'
  | 'InvalidAgentSlot'
  | 'InvalidTypedData'
  | 'KeystoreInvalid'
  | 'KeystoreUnsupportedKdf'
  | 'KeystoreUnsupportedCipher'
  | 'KeystoreKdfParamsOutOfRange'
  | 'KeystoreMacMismatch'
  | 'KeystoreAddressMismatch'
  | 'AccountExists'
  | 'AccountNotInVault'
  | 'KeyInUse'
  | 'WatchOnlyAccount'
  | 'TeamHeldKey'
  | 'InvalidShareEnvelope'
  | 'AgentKeyNotFound'
  | 'AgentSlotOccupied'
  | 'ConfirmationRequired'
  | 'ConfirmationDeclined'
  | 'NoConfirmer'
  | 'IdentityKeyExists'
  | 'IdentityKeyMissing'
  | 'InvalidTeamSecret'

export class VaultError extends DeskError {
  declare readonly code: VaultErrorCode
  constructor(code: VaultErrorCode, message: string, details?: DeskErrorDetails) {
    super(code, message, details)
  }
}

export function vaultError(code: VaultErrorCode, message: string, details?: DeskErrorDetails): VaultError {
  return new VaultError(code, message, details)
}
