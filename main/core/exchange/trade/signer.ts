import type { Address, Hex, TypedDataDefinition } from 'viem'
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

/** The vault's signing surface this adapter relies on. */
export interface VaultSigningSurface {
  signLegacy(ref: SignerRef, payload: Uint8Array, intent?: SigningIntent): Promise<Hex>
  signTypedData(ref: SignerRef, typedData: TypedDataDefinition, intent?: SigningIntent): Promise<Hex>
  signerAddress(ref: SignerRef): Address | Promise<Address>
}

export function vaultTradeSigner(vault: VaultSigningSurface): TradeSigner {
  return {
    authority: async (ref) => await vault.signerAddress(ref),
    sign: (ref, req, intent) => (req.scheme === 'legacy' ? vault.signLegacy(ref, req.payload, intent) : vault.signTypedData(ref, req.typedData, intent)),
  }
}

/** Local viem accounts keyed by signer (tests, benches, the sandbox scenario). */
export interface LocalAccountLike {
  address: Address
  sign: (args: { hash: Hex }) => Promise<Hex>
  signTypedData: (td: TypedDataDefinition) => Promise<Hex>
}

export function localTradeSigner(resolve: (ref: SignerRef) => LocalAccountLike): TradeSigner {
  return {
    authority: async (ref) => resolve(ref).address,
    sign: (ref, req) => {
      const acct = resolve(ref)
      return req.scheme === 'legacy' ? acct.sign({ hash: req.digest }) : acct.signTypedData(req.typedData)
    },
  }
}
