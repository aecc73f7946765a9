/**
 * Operator identity keys: secp256k1, one per operator, never an account key. The chain only needs
 * something that signs EIP-712 typed data and names its address; a viem local account does, and so
 * will the vault once it holds the identity key.
 */
import type { Address, Hex, TypedDataDefinition } from 'viem'
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts'

export interface TeamSigner {
  address: Address
  signTypedData(typedData: TypedDataDefinition): Promise<Hex>
}

export function newIdentityKey(): Hex {
  return generatePrivateKey()
}

export function identitySigner(privateKey: Hex): TeamSigner {
  const account = privateKeyToAccount(privateKey)
  return { address: account.address, signTypedData: (td) => account.signTypedData(td as Parameters<typeof account.signTypedData>[0]) }
}
