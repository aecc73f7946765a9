import { describe, expect, it } from 'vitest'
import * as v from 'valibot'
import { concat, encodeAbiParameters, keccak256, stringToHex, type Address } from 'viem'
import { privateKeyToAccount } from 'viem/accounts'
import { EarnEnvelopeSchema, WithdrawalRecordSchema, earnDigest, earnTypedData, operationIdHash, recoverEarnSigner } from './earn'

// Golden vectors: a change here changes what every earn signature covers (docs/wire-profile-earn.md).
const pk = '0x0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef'
const acct = privateKeyToAccount(pk)
const domain = { name: 'EarnPool', version: '1', verifyingContract: '0x00000000000000000000000000000000000e4a11' }
const create = {
  user_address: acct.address,
  user_nonce: 7,
  withdraw_type: 'instant' as const,
  asset_id: 1,
  amount: '123456789012345678901234',
  deadline_unix_ms: 1767225600000,
}
const op = { user_address: acct.address, operation_id: `withdraw:${acct.address.toLowerCase()}:7`, deadline_unix_ms: 1767225600000 }

describe('earn typed data', () => {
  it('matches the golden digests', () => {
    expect(acct.address).toBe('0xFCAd0B19bB29D4674531d6f115237E16AfCE377c')
    expect(earnDigest('CreateWithdrawal', create, domain, 696969)).toBe(
      '0x1e5efa9a34561ce6f1fe4cfcb15580791756ff7ca9a3f28134d6dd2e1c843d21',
    )
    expect(earnDigest('ClaimWithdrawal', op, domain, 696969)).toBe('0x51029fe220a4805b441b13790d2ca46c7beecc8bad99e8b5369a20ba45e5eb2f')
    expect(earnDigest('CancelWithdrawal', op, domain, 696969)).toBe('0xa44dc950702fce1b1e2b958fc0a72fced2143c9e5cf8d644e241c02005894eec')
  })

  it('produces the golden signature and recovers the signer', async () => {
    const td = earnTypedData('CreateWithdrawal', create, domain, 696969)
    const sig = await acct.signTypedData(td as Parameters<typeof acct.signTypedData>[0])
    expect(sig).toBe(
      '0x5aaaada81cbb510d4057e7ae0efd503e5b961f3645c385cc26964b63e1bf0c902136581905cceafaa9a8351f059001c9ecb024bced15cb3f4c75c4da10f9834f1b',
    )
    const rec = await recoverEarnSigner('CreateWithdrawal', create, domain, 696969, sig)
    expect(rec).toBe(acct.address)
  })

  it('encodes the claim exactly as the documented type string (independent recomputation)', () => {
    const typeHash = keccak256(stringToHex('ClaimWithdrawal(address user_address,bytes32 operation_id,uint64 deadline_unix_ms)'))
    const structHash = keccak256(
      encodeAbiParameters(
        [{ type: 'bytes32' }, { type: 'address' }, { type: 'bytes32' }, { type: 'uint64' }],
        [typeHash, op.user_address as Address, keccak256(stringToHex(op.operation_id)), BigInt(op.deadline_unix_ms)],
      ),
    )
    const domainHash = keccak256(
      encodeAbiParameters(
        [{ type: 'bytes32' }, { type: 'bytes32' }, { type: 'bytes32' }, { type: 'uint256' }, { type: 'address' }],
        [
          keccak256(stringToHex('EIP712Domain(string name,string version,uint256 chainId,address verifyingContract)')),
          keccak256(stringToHex(domain.name)),
          keccak256(stringToHex(domain.version)),
          696969n,
          domain.verifyingContract as Address,
        ],
      ),
    )
    expect(keccak256(concat(['0x1901', domainHash, structHash]))).toBe(earnDigest('ClaimWithdrawal', op, domain, 696969))
    expect(operationIdHash(op.operation_id)).toBe(keccak256(stringToHex(op.operation_id)))
  })

  it('signs scheduled and instant differently and binds the chain id', () => {
    const a = earnDigest('CreateWithdrawal', create, domain, 696969)
    expect(earnDigest('CreateWithdrawal', { ...create, withdraw_type: 'scheduled' }, domain, 696969)).not.toBe(a)
    expect(earnDigest('CreateWithdrawal', create, domain, 969696)).not.toBe(a)
  })

  it('envelope schema refuses a failure that carries data', () => {
    expect(v.safeParse(EarnEnvelopeSchema, { code: 131004, message: 'x' }).success).toBe(true)
    expect(v.safeParse(EarnEnvelopeSchema, { code: 131004, message: 'x', data: null }).success).toBe(false)
    expect(v.safeParse(EarnEnvelopeSchema, { code: 0, message: 'ok', data: {} }).success).toBe(true)
  })

  it('record schema rejects a float amount', () => {
    const rec = {
      id: 1,
      operation_id: 'withdraw:0xab:1',
      user_address: acct.address,
      user_nonce: 1,
      withdraw_type: 'scheduled',
      asset_id: 1,
      gross_amount: '10',
      user_amount: '10',
      fee_amount: '0',
      fee_bps_snapshot: 0,
      request_deadline_unix_ms: 1,
      claimable_at_unix_ms: 2,
      status: 'queued',
      created_at_unix_ms: 1,
      claimed_at_unix_ms: null,
      cancelled_at_unix_ms: null,
      completed_at_unix_ms: null,
    }
    expect(v.safeParse(WithdrawalRecordSchema, rec).success).toBe(true)
    expect(v.safeParse(WithdrawalRecordSchema, { ...rec, gross_amount: '1.5' }).success).toBe(false)
  })
})
