import type { Address, Hex, TypedDataDefinition } from 'viem'
import { DeskError } from '../../errors/desk-error'
import type { SigningRequest } from '../../wire'
import type { SignerRef } from '../../vault/types'
import type { SigningIntent } from '../../vault/signing-policy'

export type { SignerRef }

/**
 * What the submitter needs from custody: the authority address of a signer, and a signature
 * over a SigningRequest. The vault implements it; tests use local keys.
 */
export interface TradeSigner {
  /** The address the service recovers (the owner's, or the agent key's). */
  authority(ref: SignerRef): Promise<Address>
  /** `intent` is shown by the confirmation gate for owner-key fund-moving actions. */
  sign(ref: SignerRef, req: SigningRequest, intent?: SigningIntent): Promise<Hex>
}

/** The vault's signing surface this adapter relies on (main/core/vault/vault.ts). */
export interface VaultSigningSurface {
  addressOf(ref: SignerRef): Address | null
  signLegacy(ref: SignerRef, payload: Uint8Array): Promise<Hex>
  signTypedData(ref: SignerRef, typedData: TypedDataDefinition, intent?: SigningIntent): Promise<Hex>
}

export function vaultTradeSigner(vault: VaultSigningSurface): TradeSigner {
  return {
    authority: async (ref) => {
      const a = vault.addressOf(ref)
      if (!a) {
        throw new DeskError(
          'SignerNotInVault',
          ref.role === 'owner' ? `${ref.owner} is not an account in the vault` : `no agent key in slot ${ref.slot} of ${ref.owner}`,
          {
            owner: ref.owner,
          },
        )
      }
      return a
    },
    // Legacy (trading) actions are not gated; owner-key eip712 actions pass the vault's confirmation gate.
    sign: (ref, req, intent) =>
      req.scheme === 'legacy' ? vault.signLegacy(ref, req.payload) : vault.signTypedData(ref, req.typedData, intent),
  }
}
