import { describe, expect, it } from 'vitest'
import { bytesToHex, concat, encodeAbiParameters, hashTypedData, keccak256, parseAbiParameters, recoverAddress, toHex } from 'viem'
import { privateKeyToAccount } from 'viem/accounts'
import * as v from 'valibot'
import {
  CHAIN_IDS,
  TradeActionSchema,
  TradeEnvelopeSchema,
  encodeLegacyPayload,
  legacyDigest,
  recoverAuthority,
  schemeFor,
  signEnvelope,
  signingRequest,
  type TradeAction,
} from './index'

// Hardhat/Anvil test account 0: a well-known key, never holding real funds.
const KEY = '0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80' as const
const account = privateKeyToAccount(KEY)

const order = {
  type: 'order',
  market_id: '1',
  side: 'bid',
  order_type: 'limit',
  tif: 'gtc',
  price: '1.25',
  quantity: '10',
  cloid: '0x000102030405060708090a0b0c0d0e0f',
} as const satisfies TradeAction

const cancel = { type: 'cancel', market_id: '7', oid: '42' } as const satisfies TradeAction

const settle = {
  type: 'settle',
  asset_id: '2',
  amount: '150000000',
  cash_account: '0x70997970C51812dc3A010C7d01b50e0d17dc79C8',
  cloid: '0xffeeddccbbaa99887766554433221100',
} as const satisfies TradeAction

describe('golden vectors (docs/wire-profile.md)', () => {
  it('legacy order, owner-signed, sandbox chain', async () => {
    const input = { action: order, nonce: 1700000000000n, chainId: CHAIN_IDS.sandbox }
    expect(bytesToHex(encodeLegacyPayload(input))).toBe(
      '0x' +
        '54445731' +
        '01' +
        '0000000000067932' +
        '0000018bcfe56800' +
        '00' +
        '00' +
        '01' +
        '0000000000000001' +
        '00' +
        '00' +
        '00' +
        '00000004' +
        '312e3235' +
        '00000002' +
        '3130' +
        '01' +
        '000102030405060708090a0b0c0d0e0f',
    )
    expect(legacyDigest(input)).toBe('0x54de3e173810d601181f5465fe52cea4b826bc291227b7e9f175ed9752fb91f8')
    const env = await signEnvelope(account, { action: order, nonce: 1700000000000n }, CHAIN_IDS.sandbox)
    expect(env.signature).toBe(
      '0x613c1d6d3fea592fb1f9d13bc746b433529be4b36e201988b0bc6a4954dc99e42fbc1160fd6bb2085be9bc3c73b4fcdaea04c54b984dbfccd7ee0fd5e1deceb61b',
    )
    expect(env).toEqual({ action: order, nonce: '1700000000000', signature: env.signature })
    expect(await recoverAuthority(env, CHAIN_IDS.sandbox)).toBe(account.address)
  })

  it('legacy cancel with agent_epoch and expires_after_ms, mainnet chain', async () => {
    const input = { action: cancel, nonce: 1700000000001n, agentEpoch: 3n, expiresAfterMs: 1700000060000n, chainId: CHAIN_IDS.mainnet }
    expect(bytesToHex(encodeLegacyPayload(input))).toBe(
      '0x54445731' +
        '01' +
        '00000000000aa289' +
        '0000018bcfe56801' +
        '01' +
        '0000000000000003' +
        '01' +
        '0000018bcfe65260' +
        '02' +
        '0000000000000007' +
        '01' +
        '000000000000002a' +
        '00',
    )
    const env = await signEnvelope(account, input, CHAIN_IDS.mainnet)
    expect(legacyDigest(input)).toBe('0x8f340378c9c805aefb36bcac0e7c42757eb520ec53d518ee47ee18fceccb0512')
    expect(env.signature).toBe(
      '0xa64d110ebf390cb7df57f049773a22539a038baa3507624374300fc9eaf3c335609c77bf54e49648b8dbc26343527df6172a96a2524479e793075934d833817a1c',
    )
    expect(env.agent_epoch).toBe('3')
    expect(env.expires_after_ms).toBe('1700000060000')
  })

  it('eip712 settle', async () => {
    const req = signingRequest({ action: settle, nonce: 1700000000002n }, CHAIN_IDS.sandbox)
    expect(req.scheme).toBe('eip712')
    expect(req.digest).toBe('0x3cc2a6508c555399f166fbef64b0bf166b23def23e3dac29f9c5c03e4b47e4b4')
    if (req.scheme === 'eip712') expect(hashTypedData(req.typedData)).toBe(req.digest)
    const env = await signEnvelope(account, { action: settle, nonce: 1700000000002n }, CHAIN_IDS.sandbox)
    expect(env.auth_scheme).toBe('eip712')
    expect(env.signature).toBe(
      '0x220b824309eecd854504c9fcbe95ba85ce817b9e1325db59bcf15b248c43ba3624c782db6e80a89aedc98900fbde826fbe0045c28e3391ba6579ec43aa52b66b1c',
    )
    expect(await recoverAuthority(env, CHAIN_IDS.sandbox)).toBe(account.address)
  })
})

describe('legacy payload rules', () => {
  it('does not depend on JSON key order', () => {
    const reordered = JSON.parse(
      '{"cloid":"0x000102030405060708090a0b0c0d0e0f","quantity":"10","price":"1.25","tif":"gtc","order_type":"limit","side":"bid","market_id":"1","type":"order"}',
    ) as TradeAction
    const a = encodeLegacyPayload({ action: order, nonce: 1n, chainId: 1 })
    const b = encodeLegacyPayload({ action: reordered, nonce: 1n, chainId: 1 })
    expect(bytesToHex(a)).toBe(bytesToHex(b))
  })

  it('treats buy/sell as bid/ask', () => {
    const a = legacyDigest({ action: order, nonce: 1n, chainId: 1 })
    const b = legacyDigest({ action: { ...order, side: 'buy' }, nonce: 1n, chainId: 1 })
    expect(a).toBe(b)
  })

  it('folds the chain id, nonce, epoch and expiry into the digest', () => {
    const base = { action: order, nonce: 1n, chainId: CHAIN_IDS.mainnet }
    const d = legacyDigest(base)
    expect(legacyDigest({ ...base, chainId: CHAIN_IDS.testnet })).not.toBe(d)
    expect(legacyDigest({ ...base, nonce: 2n })).not.toBe(d)
    expect(legacyDigest({ ...base, agentEpoch: 0n })).not.toBe(d)
    expect(legacyDigest({ ...base, expiresAfterMs: 0n })).not.toBe(d)
  })

  it('signs the raw digest, not an EIP-191 message', async () => {
    const env = await signEnvelope(account, { action: order, nonce: 5n }, 1)
    const digest = legacyDigest({ action: order, nonce: 5n, chainId: 1 })
    expect(await recoverAddress({ hash: digest, signature: env.signature! })).toBe(account.address)
    const prefixed = await account.signMessage({ message: { raw: digest } })
    expect(prefixed).not.toBe(env.signature)
  })

  it('rejects a batch outside 1..10 with EncodeLengthOverflow', () => {
    expect(() => encodeLegacyPayload({ action: { type: 'batch', items: [] }, nonce: 1n, chainId: 1 })).toThrow(
      expect.objectContaining({ code: 'EncodeLengthOverflow' }),
    )
    const items = Array.from({ length: 11 }, () => cancel)
    expect(() => encodeLegacyPayload({ action: { type: 'batch', items }, nonce: 1n, chainId: 1 })).toThrow(
      expect.objectContaining({ code: 'EncodeLengthOverflow' }),
    )
  })

  it('hashes the whole payload with keccak256', () => {
    const p = encodeLegacyPayload({ action: cancel, nonce: 9n, chainId: 1 })
    expect(legacyDigest({ action: cancel, nonce: 9n, chainId: 1 })).toBe(keccak256(p))
  })
})

describe('signature recovery', () => {
  it('accepts v of 0/1 as well as 27/28', async () => {
    const env = await signEnvelope(account, { action: cancel, nonce: 11n }, 1)
    const v = parseInt(env.signature!.slice(130), 16)
    const low = (env.signature!.slice(0, 130) + (v - 27).toString(16).padStart(2, '0')) as `0x${string}`
    expect(await recoverAuthority({ ...env, signature: low }, 1)).toBe(account.address)
  })

  it('recovers a different authority for the wrong chain id', async () => {
    const env = await signEnvelope(account, { action: cancel, nonce: 11n }, CHAIN_IDS.testnet)
    expect(await recoverAuthority(env, CHAIN_IDS.mainnet)).not.toBe(account.address)
  })

  it('rejects a malformed signature as BadSignature', async () => {
    const env = await signEnvelope(account, { action: cancel, nonce: 11n }, 1)
    await expect(recoverAuthority({ ...env, signature: '0x1234' }, 1)).rejects.toMatchObject({ code: 'BadSignature' })
    const badV = (env.signature!.slice(0, 130) + '05') as `0x${string}`
    await expect(recoverAuthority({ ...env, signature: badV }, 1)).rejects.toMatchObject({ code: 'BadSignature' })
  })

  it('refuses an agent epoch on an eip712 action', () => {
    expect(() => signingRequest({ action: settle, nonce: 1n, agentEpoch: 1n }, 1)).toThrow(
      expect.objectContaining({ code: 'Eip712AgentEpochNotAllowed' }),
    )
  })
})

describe('schemas', () => {
  it('assigns the scheme per action type', () => {
    expect(['order', 'cancel', 'cancelAll', 'modify', 'batch'].map((t) => schemeFor(t as TradeAction['type']))).toEqual(
      Array(5).fill('legacy'),
    )
    expect(
      ['transfer', 'activateFor', 'withdraw', 'settle', 'repay', 'approveAgent', 'revokeAgent'].map((t) =>
        schemeFor(t as TradeAction['type']),
      ),
    ).toEqual(Array(7).fill('eip712'))
  })

  it('validates action bodies strictly', () => {
    expect(v.safeParse(TradeActionSchema, order).success).toBe(true)
    expect(v.safeParse(TradeActionSchema, { ...order, price: 1.25 }).success).toBe(false)
    expect(v.safeParse(TradeActionSchema, { ...order, cloid: '0x1234' }).success).toBe(false)
    expect(v.safeParse(TradeActionSchema, { ...order, extra: 1 }).success).toBe(false)
    expect(v.safeParse(TradeActionSchema, { type: 'cancel', market_id: '1' }).success).toBe(false)
    expect(v.safeParse(TradeActionSchema, { type: 'approveAgent', slot_id: 4, agent: account.address }).success).toBe(false)
    expect(v.safeParse(TradeEnvelopeSchema, { action: order, nonce: '1', signature: '0x' + '11'.repeat(65), extra: true }).success).toBe(
      false,
    )
  })
})

describe('EIP-712 golden digests for every owner action (mainnet, nonce 1700000000000, expiry 1700000300000)', () => {
  const A = '0x70997970c51812dc3a010c7d01b50e0d17dc79c8'
  const C = '0x0123456789abcdef0123456789abcdef'
  const cases: [TradeAction, string][] = [
    [
      { type: 'transfer', to: A, asset_id: '1', amount: '2500000000', cloid: C },
      '0xf87dbd6ff212fe0c225c64542c53fcc61f64b33db2ef8232220f1b4efd533aee',
    ],
    [
      { type: 'activateFor', asset_id: '2', target_address: A, cloid: C },
      '0x4bea2082cbc6466e6f92b164f8eedead1dff36c01fd3a047546ddc46edcfc70a',
    ],
    [
      {
        type: 'withdraw',
        asset_id: '1',
        amount: '1000000000',
        dst_chain_id: '1',
        dst_address: A,
        withdraw_nonce: '1700000000123',
        cloid: C,
      },
      '0x19e77040ebd5263db5d92339134402e834a73a512ab3d158035693d508b6c375',
    ],
    [
      { type: 'settle', asset_id: '3', amount: '50000000', cash_account: A, cloid: C },
      '0x13367b3ad8d139597719fc2fde96b9159ce002a4596c3b9646ef710f758d2d69',
    ],
    [
      { type: 'repay', asset_id: '1', amount: '70000000000', margin_account: A, cloid: C },
      '0x61b13540a1233d55391adf5fd1ddba0692cdafd878fc49ac69fa0f5f7beb6fb4',
    ],
    [{ type: 'approveAgent', slot_id: 2, agent: A }, '0x31092433402a7e1b371e2023a755ec0afc60307dd3e9418765bb7c33625fca01'],
    [{ type: 'revokeAgent', slot_id: 3 }, '0xbbb6b39cb0c553a6ee6002a436d272e756e9bb71194d489a5c55fd510f122668'],
  ]
  for (const [action, digest] of cases) {
    it(action.type, () => {
      expect(signingRequest({ action, nonce: 1700000000000n, expiresAfterMs: 1700000300000n }, CHAIN_IDS.mainnet).digest).toBe(digest)
    })
  }

  it('Transfer digest equals a hand-built EIP-712 hash (type string, domain, struct)', () => {
    const typeHash = keccak256(
      toHex('Transfer(address to,uint64 asset_id,uint256 amount,bytes16 cloid,uint64 nonce,uint64 expires_after_ms)'),
    )
    const domainTypeHash = keccak256(toHex('EIP712Domain(string name,string version,uint256 chainId)'))
    const domainSep = keccak256(
      encodeAbiParameters(parseAbiParameters('bytes32, bytes32, bytes32, uint256'), [
        domainTypeHash,
        keccak256(toHex('OrderBookTrading')),
        keccak256(toHex('1')),
        696969n,
      ]),
    )
    const structHash = keccak256(
      encodeAbiParameters(parseAbiParameters('bytes32, address, uint64, uint256, bytes16, uint64, uint64'), [
        typeHash,
        A,
        1n,
        2500000000n,
        C,
        1700000000000n,
        1700000300000n,
      ]),
    )
    expect(keccak256(concat(['0x1901', domainSep, structHash]))).toBe(cases[0]![1])
  })
})

describe('legacy golden vectors for modify and batch (testnet, nonce 1700000000003)', () => {
  it('modify by cloid with a null replacement cloid', () => {
    const action: TradeAction = {
      type: 'modify',
      market_id: '2',
      cloid: '0x000000000000000000000000000000aa',
      replacement: { side: 'sell', order_type: 'market', tif: 'ioc', price: '3000', quantity: '0.25', cloid: null },
    }
    const input = { action, nonce: 1700000000003n, chainId: CHAIN_IDS.testnet }
    expect(bytesToHex(encodeLegacyPayload(input))).toBe(
      '0x54445731' +
        '01' +
        '00000000000ecbe0' +
        '0000018bcfe56803' +
        '00' +
        '00' +
        '04' +
        '0000000000000002' +
        '00' +
        '01' +
        '000000000000000000000000000000aa' +
        '01' +
        '01' +
        '01' +
        '00000004' +
        '33303030' +
        '00000004' +
        '302e3235' +
        '00',
    )
    expect(legacyDigest(input)).toBe('0x48b3c919d91bfb8cf3e8e6aa13b48b5ee1aefeeabba9be05abc8f8bcfe5d8635')
  })

  it('batch of cancelAll and an alo order', () => {
    const action: TradeAction = {
      type: 'batch',
      items: [
        { type: 'cancelAll', market_id: '1' },
        { type: 'order', market_id: '1', side: 'ask', order_type: 'limit', tif: 'alo', price: '65000.5', quantity: '0.001' },
      ],
    }
    const input = { action, nonce: 1700000000003n, chainId: CHAIN_IDS.testnet }
    expect(bytesToHex(encodeLegacyPayload(input))).toBe(
      '0x54445731' +
        '01' +
        '00000000000ecbe0' +
        '0000018bcfe56803' +
        '00' +
        '00' +
        '05' +
        '02' +
        '03' +
        '0000000000000001' +
        '01' +
        '0000000000000001' +
        '01' +
        '00' +
        '03' +
        '00000007' +
        '36353030302e35' +
        '00000005' +
        '302e303031' +
        '00',
    )
    expect(legacyDigest(input)).toBe('0x1b513c848ed3f8a2f087458a68b93f64e06689269b2b5d5335827b41d11c3893')
  })
})
