import type { Address, Hex, TypedDataDefinition } from 'viem'
import type { SignerRef, TradeSigner } from '../signer'

/** Local viem accounts keyed by signer, in place of the vault (tests). */
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
