/**
 * Helpers for the conformance tests: well-known test keys (Anvil/Hardhat accounts, never
 * funded anywhere real), signed envelopes, and a service with a fast block cadence.
 */
import { privateKeyToAccount, type PrivateKeyAccount } from 'viem/accounts'
import type { Address } from 'viem'
import { CHAIN_IDS } from '../../main/core/wire/chains'
import type { TradeAction, TradeEnvelope, TradeResponse } from '../../main/core/wire/actions'
import { signEnvelope } from '../../main/core/wire/signing'
import { createTradingService } from '../trading/service'
import type { HttpResult, TradingService, TradingServiceOptions } from '../trading/types'

export const KEYS = {
  alice: '0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80',
  bob: '0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d',
  carol: '0x5de4111afa1a4b94908f83103eb1f1706367c2e68ca870fc3fb9a804cdab365a',
  dave: '0x7c852118294e51e653712a81e05800f419141751be58f605c371e15141b007a6',
  agent1: '0x47e179ec197488593b187f80a00eb0da91f1b9d0b13f8733639f19c30a34926a',
  agent2: '0x8b3a350cf5c34c9194ca85829a2df0ec3153be0318b5e2d3348e872092edffba',
  erin: '0x92db14e403b83dfe3df233f83dfa3a0d7096f21ca9b0d6d6b8d88b2b4ec1564e',
} as const

export type Who = keyof typeof KEYS

export const wallets = Object.fromEntries(Object.entries(KEYS).map(([k, v]) => [k, privateKeyToAccount(v)])) as Record<
  Who,
  PrivateKeyAccount
>

export function addr(who: Who): Address {
  return wallets[who].address.toLowerCase() as Address
}

export const CHAIN = CHAIN_IDS.sandbox

export function makeService(extra: Partial<TradingServiceOptions> = {}): TradingService {
  const svc = createTradingService({ chainId: CHAIN, blockMs: 2, rateLimits: false, waitBudgetMs: 3000, ...extra })
  svc.start()
  return svc
}

let lastNonce = BigInt(Date.now())
export function nextNonce(): bigint {
  const t = BigInt(Date.now())
  lastNonce = t > lastNonce ? t : lastNonce + 1n
  return lastNonce
}

export interface SignOpts {
  nonce?: bigint
  agentEpoch?: bigint
  expiresAfterMs?: bigint
  chainId?: number
}

export async function sign(who: Who, action: TradeAction, o: SignOpts = {}): Promise<TradeEnvelope> {
  return signEnvelope(
    wallets[who],
    { action, nonce: o.nonce ?? nextNonce(), agentEpoch: o.agentEpoch, expiresAfterMs: o.expiresAfterMs },
    o.chainId ?? CHAIN,
  )
}

export async function send(
  svc: TradingService,
  body: TradeEnvelope | string,
  headers: Record<string, string> = {},
  ip = '127.0.0.1',
): Promise<HttpResult & { body: TradeResponse }> {
  const raw = typeof body === 'string' ? body : JSON.stringify(body)
  return (await svc.handleTrade(raw, headers, ip)) as HttpResult & { body: TradeResponse }
}

export async function trade(svc: TradingService, who: Who, action: TradeAction, o: SignOpts = {}): Promise<TradeResponse> {
  return (await send(svc, await sign(who, action, o))).body
}

export async function info(svc: TradingService, body: Record<string, unknown>): Promise<{ status: number; body: any }> {
  return svc.handleInfo(JSON.stringify(body), '127.0.0.1')
}

export const USDC = 1
export const USDT = 2
export const BTC = 3
export const ETH = 4
export const ONE = 100_000_000n

/** A funded balance-mode account: 1.0 USDC activation fee paid from the first deposit. */
export function fund(svc: TradingService, who: Who, usdc: bigint = 1_000_000n * ONE, btc: bigint = 100n * ONE): void {
  svc.deposit(addr(who), USDC, usdc + ONE)
  if (btc > 0n) svc.deposit(addr(who), BTC, btc)
}

export function cloid(n: number): `0x${string}` {
  return `0x${n.toString(16).padStart(32, '0')}`
}
