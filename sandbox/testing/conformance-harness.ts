/**
 * Shared helpers of the over-the-wire conformance tests: a sandbox on 127.0.0.1:0 with a fast
 * block cadence, JSON POST helpers that keep status and headers, and signed /trade bodies.
 */
import { privateKeyToAccount } from 'viem/accounts'
import type { Hex, TypedDataDefinition } from 'viem'
import type { TradeAction } from '../../main/core/wire/actions'
import { signEnvelope } from '../../main/core/wire/signing'
import { startSandbox, type SandboxHandle, type StartSandboxOptions } from '../index'

export async function startTestSandbox(opts: StartSandboxOptions = {}): Promise<SandboxHandle> {
  return startSandbox({ blockMs: 20, rateLimits: false, botIntervalMs: 0, wsIdleMs: 60_000, tradeWaitBudgetMs: 400, ...opts })
}

export interface WireResponse<T = any> {
  status: number
  headers: Headers
  body: T
  text: string
}

export async function postRaw(url: string, body: string, headers: Record<string, string> = {}): Promise<WireResponse> {
  const r = await fetch(url, { method: 'POST', body, headers: { 'content-type': 'application/json', ...headers } })
  const text = await r.text()
  let parsed: unknown
  try {
    parsed = JSON.parse(text)
  } catch {
    parsed = undefined
  }
  return { status: r.status, headers: r.headers, body: parsed, text }
}

export function postJson(url: string, body: unknown, headers: Record<string, string> = {}): Promise<WireResponse> {
  return postRaw(url, JSON.stringify(body), headers)
}

export async function getJson(url: string): Promise<WireResponse> {
  const r = await fetch(url)
  const text = await r.text()
  return { status: r.status, headers: r.headers, body: JSON.parse(text), text }
}

/** Signs `/trade` bodies for one key with strictly increasing ms nonces. */
export function tradeSigner(privateKey: Hex, chainId: number) {
  const account = privateKeyToAccount(privateKey)
  const signer = {
    sign: (a: { hash: Hex }) => account.sign(a),
    signTypedData: (td: TypedDataDefinition) => account.signTypedData(td as Parameters<typeof account.signTypedData>[0]),
  }
  let last = 0n
  return {
    address: account.address.toLowerCase(),
    async body(action: TradeAction | Record<string, unknown>, agentEpoch?: bigint): Promise<string> {
      const t = BigInt(Date.now())
      last = t > last ? t : last + 1n
      const env = await signEnvelope(signer, { action: action as TradeAction, nonce: last, agentEpoch }, chainId)
      return JSON.stringify(env)
    },
  }
}

let cloidSeq = 0
/** A fresh 16-byte cloid. */
export function newCloid(): string {
  cloidSeq += 1
  return '0x' + (Date.now().toString(16) + cloidSeq.toString(16).padStart(8, '0')).padStart(32, '0')
}
