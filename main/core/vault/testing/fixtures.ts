/**
 * Fixed test material for vault tests and the vault bench. The wire module defines the real
 * payloads; these stand-ins have the same shape (a legacy order payload's bytes, a settle-shaped
 * EIP-712 value) so the vault can be tested without depending on it.
 */
import { hexToBytes, type Address, type Hex } from 'viem'

/** Well-known development keys (anvil/hardhat accounts 0 and 1): never hold value with them. */
export const DEV_KEY_0: Hex = '0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80'
export const DEV_ADDRESS_0: Address = '0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266'
export const DEV_KEY_1: Hex = '0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d'
export const DEV_ADDRESS_1: Address = '0x70997970C51812dc3A010C7d01b50e0d17dc79C8'

/** A stand-in legacy order payload: bytes as the wire profile would produce them. */
export const LEGACY_ORDER_PAYLOAD: Uint8Array = hexToBytes(
  '0x01000000000000000a000000000000053900000000000000000000000000001388000000000000000000000000000f4240016c6f6e672d636c6f69642d3030303100000000018c8f2a5e0000000000000001',
)

export const SETTLE_TYPED_DATA = {
  domain: { name: 'TreasuryDeskSandbox', version: '1', chainId: 1337 },
  types: {
    Settle: [
      { name: 'asset_id', type: 'uint64' },
      { name: 'amount', type: 'uint256' },
      { name: 'cash_account', type: 'address' },
      { name: 'cloid', type: 'bytes16' },
      { name: 'nonce', type: 'uint64' },
    ],
  },
  primaryType: 'Settle',
  message: {
    asset_id: 1n,
    amount: 1_500_000n,
    cash_account: '0x70997970C51812dc3A010C7d01b50e0d17dc79C8',
    cloid: '0x000102030405060708090a0b0c0d0e0f',
    nonce: 1_763_700_000_000n,
  },
} as const

export const SETTLE_INTENT = {
  action: 'settle' as const,
  title: 'Settle 1.5 USDC',
  summary: ['From credit account 0xf39F…2266', 'To cash account 0x7099…79C8', 'Amount 1.5 USDC (1500000 atoms)'],
}
