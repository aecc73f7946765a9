import { hashTypedData, recoverAddress, recoverTypedDataAddress, type Address, type Hex, type TypedDataDefinition } from 'viem'
import { DeskError } from '../errors/desk-error'
import { schemeFor, type Eip712Action, type TradeAction, type TradeEnvelope } from './actions'
import { tradingTypedData } from './eip712'
import { encodeLegacyPayload } from './legacy'
import { keccak256 } from 'viem'

/** What has to be signed for an envelope, per the scheme its action requires. */
export type SigningRequest =
  { scheme: 'legacy'; payload: Uint8Array; digest: Hex } | { scheme: 'eip712'; typedData: TypedDataDefinition; digest: Hex }

export interface UnsignedEnvelope {
  action: TradeAction
  nonce: bigint
  agentEpoch?: bigint | undefined
  expiresAfterMs?: bigint | undefined
}

export function signingRequest(env: UnsignedEnvelope, chainId: number): SigningRequest {
  if (schemeFor(env.action.type) === 'legacy') {
    const payload = encodeLegacyPayload({ ...env, chainId })
    return { scheme: 'legacy', payload, digest: keccak256(payload) }
  }
  if (env.agentEpoch !== undefined) {
    throw new DeskError('Eip712AgentEpochNotAllowed', `${env.action.type} is signed by the owner and carries no agent_epoch`)
  }
  const typedData = tradingTypedData({
    action: env.action as Eip712Action,
    nonce: env.nonce,
    expiresAfterMs: env.expiresAfterMs,
    chainId,
  }) as TypedDataDefinition
  return { scheme: 'eip712', typedData, digest: hashTypedData(typedData) }
}

/** A 65-byte r||s||v signature with v normalised to 27/28 (0/1 accepted). Throws BadSignature. */
export function normalizeSignature(signature: string): Hex {
  if (!/^0x[0-9a-fA-F]{130}$/.test(signature)) throw new DeskError('BadSignature', 'signature must be 0x + 65 bytes hex')
  const v = parseInt(signature.slice(130, 132), 16)
  if (v === 0 || v === 1) return (signature.slice(0, 130) + (v + 27).toString(16)) as Hex
  if (v === 27 || v === 28) return signature as Hex
  throw new DeskError('BadSignature', `signature recovery byte must be 0, 1, 27 or 28, got ${v}`)
}

function toBigint(value: string | number | undefined, field: string): bigint | undefined {
  if (value === undefined) return undefined
  if (typeof value === 'number') {
    if (!Number.isSafeInteger(value) || value < 0) throw new DeskError('MalformedTx', `${field} must be an unsigned integer`)
    return BigInt(value)
  }
  if (!/^(0|[1-9][0-9]*)$/.test(value)) throw new DeskError('MalformedTx', `${field} must be a decimal u64 string`)
  return BigInt(value)
}

/** The envelope's own values as bigints, as the signing payload needs them. */
export function unsignedFromEnvelope(envelope: TradeEnvelope): UnsignedEnvelope {
  return {
    action: envelope.action,
    nonce: toBigint(envelope.nonce, 'nonce')!,
    agentEpoch: toBigint(envelope.agent_epoch, 'agent_epoch'),
    expiresAfterMs: toBigint(envelope.expires_after_ms, 'expires_after_ms'),
  }
}

/**
 * Rebuilds the signed payload from the parsed envelope and recovers the signer (the
 * transaction authority). Legacy signs keccak256(payload) raw, without an EIP-191 prefix.
 */
export async function recoverAuthority(envelope: TradeEnvelope, chainId: number): Promise<Address> {
  if (envelope.signature === undefined) throw new DeskError('BadSignature', 'signature is missing')
  const signature = normalizeSignature(envelope.signature)
  const req = signingRequest(unsignedFromEnvelope(envelope), chainId)
  try {
    if (req.scheme === 'legacy') return await recoverAddress({ hash: req.digest, signature })
    return await recoverTypedDataAddress({ ...req.typedData, signature } as Parameters<typeof recoverTypedDataAddress>[0])
  } catch {
    throw new DeskError('BadSignature', 'signature does not recover to a public key')
  }
}

/** Signs an envelope's request with any viem local account (private key account). */
export async function signEnvelope(
  account: { sign: (args: { hash: Hex }) => Promise<Hex>; signTypedData: (td: TypedDataDefinition) => Promise<Hex> },
  env: UnsignedEnvelope,
  chainId: number,
): Promise<TradeEnvelope> {
  const req = signingRequest(env, chainId)
  const signature = req.scheme === 'legacy' ? await account.sign({ hash: req.digest }) : await account.signTypedData(req.typedData)
  const out: TradeEnvelope = { action: env.action, nonce: env.nonce.toString() }
  if (env.agentEpoch !== undefined) out.agent_epoch = env.agentEpoch.toString()
  if (env.expiresAfterMs !== undefined) out.expires_after_ms = env.expiresAfterMs.toString()
  if (req.scheme === 'eip712') out.auth_scheme = 'eip712'
  out.signature = signature
  return out
}
