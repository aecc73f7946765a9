/** Signing chain ids per environment; folded into every signed /trade payload. */
export const CHAIN_IDS = { mainnet: 696969, testnet: 969696, sandbox: 424242 } as const

export type NetworkName = keyof typeof CHAIN_IDS
