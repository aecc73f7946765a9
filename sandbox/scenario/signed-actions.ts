/**
 * Submits signed `/trade` envelopes straight into the trading service, as a client would send
 * them (same canonical payload, same signature check). Used by the scenario and its bots.
 */
import { privateKeyToAccount } from 'viem/accounts'
import type { Hex, TypedDataDefinition } from 'viem'
import type { TradeAction } from '../../main/core/wire/actions'
import { signEnvelope } from '../../main/core/wire/signing'
import type { HttpResult, TradingService } from '../trading/types'

export interface ActionSender {
  readonly address: string
  /** Signs and submits; `agentEpoch` when this key acts as an agent; `peer` overrides the peer id. */
  send(action: TradeAction, agentEpoch?: bigint, peer?: string): Promise<HttpResult>
}

/** `ip` is the peer id the service rate-limits on: fixed, or chosen per action. */
export function actionSender(
  trading: TradingService,
  privateKey: Hex,
  ip: string | (() => string),
  now: () => number = Date.now,
): ActionSender {
  const account = privateKeyToAccount(privateKey)
  const signer = {
    sign: (args: { hash: Hex }) => account.sign(args),
    signTypedData: (td: TypedDataDefinition) => account.signTypedData(td as Parameters<typeof account.signTypedData>[0]),
  }
  let lastNonce = 0n
  return {
    address: account.address.toLowerCase(),
    async send(action, agentEpoch, peer) {
      // Nonces are ms timestamps, strictly increasing per signer.
      const t = BigInt(now())
      lastNonce = t > lastNonce ? t : lastNonce + 1n
      const env = await signEnvelope(signer, { action, nonce: lastNonce, agentEpoch }, trading.chainId)
      return trading.handleTrade(JSON.stringify(env), {}, peer ?? (typeof ip === 'string' ? ip : ip()))
    },
  }
}

/** True when a trade response executed without an envelope-level failure. */
export function accepted(res: HttpResult): boolean {
  return res.status === 200 && (res.body as { submission_status?: string } | null)?.submission_status === 'accepted'
}
