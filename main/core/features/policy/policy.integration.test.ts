import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { writeFileSync } from 'node:fs'
import { devOwner } from '../../../../sandbox/scenario/dev-keys'
import type {
  AddressBookEntryView,
  AgentSlotView,
  HaltResult,
  NetworkView,
  PolicyView,
  PreviewView,
  SubmissionView,
  WriteOutcome,
} from '../../../contract/types'
import type { DeskErrorData } from '../../errors/desk-error'
import { exchangeIdentity, exchangeKey, exchangePolicyPath, exchangeTag } from '../../policy'
import { startDeskOnSandbox, TEST_PASSPHRASE, type DeskOnSandbox } from '../../../testing/desk-on-sandbox'

/**
 * Every guardrail through the real core over a live sandbox: each refusal carries its typed code
 * and reason, and the sandbox's ground truth shows nothing reached the exchange.
 */
const DEST = '0x52908400098527886E0F7030069857D2E4169EE7' // a valid EIP-55 address nobody in the scenario owns
const BAD_CHECKSUM = '0x52908400098527886E0F7030069857D2E4169Ee7'

describe('operator policy enforced in main, against the sandbox', () => {
  let d: DeskOnSandbox
  let stopConfirm: () => void
  const truth = () => d.sandbox.trading.groundTruth().length
  const journaled = async () => (await d.call<SubmissionView[]>('journal.query', {})).length
  /** Runs a call expected to be refused: returns its error; asserts nothing reached the exchange or the journal. */
  const refused = async (channel: string, args: unknown): Promise<DeskErrorData> => {
    const [t0, j0] = [truth(), await journaled()]
    const r = await d.core.dispatch(channel, args, { host: 'test' })
    if (r.ok) throw new Error(`${channel} was not refused`)
    expect(truth()).toBe(t0)
    expect(await journaled()).toBe(j0)
    expect(r.error.details?.code ?? r.error.code).toBe(r.error.code)
    return r.error
  }
  const owner = (i: number) => devOwner(i).address
  /** The sandbox exchange's policy file (the policy is kept per exchange: chain id and service hosts). */
  const sandboxExchange = () => exchangeIdentity({ chainId: 424242, tradingUrl: d.sandbox.tradingUrl, earnUrl: d.sandbox.earnUrl })
  const policyFile = () => exchangePolicyPath(d.dataDir, exchangeTag(sandboxExchange()))

  beforeAll(async () => {
    d = await startDeskOnSandbox()
    await d.call('vault.create', { passphrase: TEST_PASSPHRASE })
    await d.call('accounts.importSandboxKeys')
    stopConfirm = d.autoConfirm()
  })
  afterAll(async () => {
    stopConfirm?.()
    await d?.close()
  })

  it('shows the sandbox defaults: 60 s cooling-off (said so), 5% band, no halt', async () => {
    const p = await d.call<PolicyView>('policy.show')
    expect(p).toMatchObject({ network: 'sandbox', coolingOffMs: 60_000, sandboxDefaults: true, halted: null, addresses: [] })
    expect(p.rules.find((r) => r.name === 'price-band')?.value).toBe('5')
  })

  it('withdrawals go only to address-book entries; bad checksum and burn addresses are refused', async () => {
    const w = { account: owner(0), assetId: 1, amount: '10', dstChainId: '1' }
    expect((await refused('withdraw.submit', { ...w, dstAddress: DEST })).code).toBe('DestinationNotAllowed')
    expect((await refused('withdraw.submit', { ...w, dstAddress: BAD_CHECKSUM })).code).toBe('InvalidAddressChecksum')
    expect((await refused('addresses.add', { label: 'typo', address: BAD_CHECKSUM, chainId: '1', passphrase: TEST_PASSPHRASE })).code).toBe(
      'InvalidAddressChecksum',
    )
    expect(
      (
        await refused('addresses.add', {
          label: 'burn',
          address: '0x000000000000000000000000000000000000dEaD',
          chainId: '1',
          passphrase: TEST_PASSPHRASE,
        })
      ).code,
    ).toBe('BurnAddress')
    expect(
      (
        await refused('addresses.add', {
          label: 'zero',
          address: '0x0000000000000000000000000000000000000000',
          chainId: '1',
          passphrase: TEST_PASSPHRASE,
        })
      ).code,
    ).toBe('BurnAddress')
    expect((await refused('addresses.add', { label: 'cold', address: DEST, chainId: '1', passphrase: 'not the passphrase' })).code).toBe(
      'PassphraseIncorrect',
    )
    expect(await d.call<AddressBookEntryView[]>('addresses.list')).toEqual([])
  })

  it('a new entry is refused during its cooling-off (the refusal says the sandbox default), then usable', async () => {
    const e = await d.call<AddressBookEntryView>('addresses.add', {
      label: 'cold',
      address: DEST.toLowerCase(),
      chainId: '1',
      passphrase: TEST_PASSPHRASE,
    })
    expect(e).toMatchObject({ label: 'cold', address: DEST, chainId: '1', usable: false })
    expect(e.usableAt - e.addedAt).toBe(60_000)
    const w = { account: owner(0), assetId: 1, amount: '10', dstChainId: '1', dstAddress: DEST }
    const err = await refused('withdraw.submit', w)
    expect(err.code).toBe('DestinationCoolingOff')
    expect(err.message).toContain('sandbox default is 60 seconds')
    // the right address on another chain is not the entry
    expect((await refused('withdraw.submit', { ...w, dstChainId: '42161' })).code).toBe('DestinationNotAllowed')

    // The operator's earlier, matured choice of a 1.5 s cooling-off (written as the engine would persist it).
    writeFileSync(
      policyFile(),
      JSON.stringify({
        version: 1,
        network: exchangeKey(sandboxExchange()),
        rules: { 'cooling-off': '1500' },
        pending: [],
        addresses: [],
        halted: null,
        exchange: { ...sandboxExchange(), kind: 'sandbox' },
        aliases: ['sandbox'],
      }),
    )
    const e2 = await d.call<AddressBookEntryView>('addresses.add', {
      label: 'cold',
      address: DEST,
      chainId: '1',
      passphrase: TEST_PASSPHRASE,
    })
    expect(e2.usableAt - e2.addedAt).toBe(1500)
    expect((await refused('withdraw.submit', w)).code).toBe('DestinationCoolingOff')
    await new Promise((r) => setTimeout(r, 1600))
    const t0 = truth()
    const out = await d.call<WriteOutcome>('withdraw.submit', w)
    expect(out.submission).toMatchObject({ actionType: 'withdraw', state: 'accepted' })
    expect(truth()).toBe(t0 + 1)
  })

  it('transfers go only to own accounts or address-book entries; the preview shows the refusal', async () => {
    const preview = await d.call<PreviewView>('transfer.preview', {
      from: owner(0),
      to: '0x1111111111111111111111111111111111111111',
      assetId: 1,
      amount: '5',
    })
    expect(preview.warnings[0]).toMatch(/^Refused by policy \(DestinationNotAllowed\)/)
    expect(
      (await refused('transfer.submit', { from: owner(0), to: '0x1111111111111111111111111111111111111111', assetId: 1, amount: '5' }))
        .code,
    ).toBe('DestinationNotAllowed')
    const out = await d.call<WriteOutcome>('transfer.submit', { from: owner(0), to: owner(2), assetId: 1, amount: '12.5' })
    expect(out.submission.state).toBe('accepted')
  })

  it('limits: per transaction and rolling 24 h in USD at the marks, with used and when room frees up; a stale mark refuses', async () => {
    await d.call('policy.set', { name: 'withdraw-limit-usd', value: '15' }) // tightening: no passphrase
    const w = { account: owner(0), assetId: 1, amount: '20', dstChainId: '1', dstAddress: DEST }
    const err = await refused('withdraw.submit', w)
    expect(err).toMatchObject({ code: 'LimitExceeded', details: { rule: 'withdraw-limit-usd', limit: '15', amount: '20' } })

    // 12.5 USDC was transferred above; a 20 USD rolling limit leaves 7.5
    await d.call('policy.set', { name: 'transfer-daily-limit-usd', value: '20' })
    const first = (await d.call<SubmissionView[]>('journal.query', { actionType: 'transfer' })).at(-1)!
    const t = { from: owner(0), to: owner(2), assetId: 1, amount: '10' }
    const daily = await refused('transfer.submit', t)
    expect(daily).toMatchObject({
      code: 'LimitExceeded',
      details: { rule: 'transfer-daily-limit-usd', limit: '20', used: '12.5', amount: '10' },
    })
    expect(Number(daily.details!.freesAt)).toBeGreaterThan(Date.now() + 23 * 3_600_000)
    expect(daily.message).toContain('frees up at')
    expect(first).toBeTruthy()
    await d.call<WriteOutcome>('transfer.submit', { ...t, amount: '7.5' })
    expect((await refused('transfer.submit', { ...t, amount: '0.01' })).code).toBe('LimitExceeded')

    // per-asset limit in asset units
    await d.call('policy.set', { name: 'withdraw-asset-limit:1', value: '3' })
    expect((await refused('withdraw.submit', { ...w, amount: '4' })).details).toMatchObject({ rule: 'withdraw-asset-limit:1' })

    // loosening needs the passphrase and waits for the cooling-off (1.5 s here)
    expect((await refused('policy.set', { name: 'withdraw-limit-usd', value: '1000' })).code).toBe('PassphraseRequired')
    const p = await d.call<PolicyView>('policy.set', { name: 'withdraw-limit-usd', value: '1000', passphrase: TEST_PASSPHRASE })
    expect(p.rules.find((r) => r.name === 'withdraw-limit-usd')).toMatchObject({ value: '15', pending: { value: '1000' } })
    await new Promise((r) => setTimeout(r, 1600))
    expect((await d.call<PolicyView>('policy.show')).rules.find((r) => r.name === 'withdraw-limit-usd')).toMatchObject({
      value: '1000',
      pending: null,
    })

    // a USD limit cannot be checked without a fresh mark: refused, never valued at a guess
    d.sandbox.trading.setOracle({ status: 'unavailable', reason_code: 'ProviderError' })
    try {
      await new Promise((r) => setTimeout(r, 5100)) // the market-data cache keeps marks 5 s
      expect((await refused('withdraw.submit', { ...w, amount: '2.5' })).code).toBe('MarkUnavailable')
    } finally {
      d.sandbox.trading.setOracle({ status: 'available' })
    }
  }, 20_000)

  it('orders: outside the price band refused (with the phrase to type), override journaled; maximum order value', async () => {
    // market 2's best ask is 3450.5; a buy at 10x is a fat finger
    const o = { account: owner(1), marketId: '2', side: 'bid', orderType: 'limit', tif: 'gtc', price: '34505', quantity: '0.01' }
    const err = await refused('orders.place', o)
    expect(err.code).toBe('PriceOutsideBand')
    expect(err.details).toMatchObject({ band: '5', reference: '3450.5', confirmText: 'BUY MARKET 2 AT 34505' })
    expect(err.message).toContain('BUY MARKET 2 AT 34505')
    expect((await refused('orders.place', { ...o, override: { priceBand: true, confirmText: 'yes' } })).code).toBe('PriceOutsideBand')
    // a sell far below the best bid (2990)
    expect((await refused('orders.place', { ...o, side: 'ask', price: '2000' })).code).toBe('PriceOutsideBand')
    // within the band it goes through; so does the knowing override
    const ok = await d.call<WriteOutcome>('orders.place', { ...o, price: '3000' })
    expect(ok.submission.state).toBe('accepted')
    const over = await d.call<WriteOutcome>('orders.place', {
      ...o,
      price: '3700',
      override: { priceBand: true, confirmText: 'BUY MARKET 2 AT 3700' },
    })
    expect(over.submission.state).toBe('accepted')
    const events = (await d.call<PolicyView>('policy.show')).events
    expect(events.some((e) => e.kind === 'override.priceBand' && e.summary.includes('3700'))).toBe(true)

    await d.call('policy.set', { name: 'max-order-usd', value: '20' })
    const big = await refused('orders.place', { ...o, price: '3000' }) // 30 USD
    expect(big).toMatchObject({ code: 'LimitExceeded', details: { rule: 'max-order-usd', limit: '20' } })
  })

  it('halt cancels every open order of every account (verified), refuses writes until resume with the passphrase', async () => {
    const before = [0, 1, 2, 3, 4, 5].map((i) => d.sandbox.trading.openOrders(owner(i)).orders.length).reduce((a, b) => a + b, 0)
    expect(before).toBeGreaterThan(0)
    const h = await d.call<HaltResult>('policy.halt')
    expect(h.accounts).toHaveLength(6)
    for (const a of h.accounts) expect(a, a.label).toMatchObject({ verifiedZero: true, remaining: [], error: null })
    for (let i = 0; i < 6; i++) expect(d.sandbox.trading.openOrders(owner(i)).orders).toEqual([])

    const o = { account: owner(1), marketId: '2', side: 'bid', orderType: 'limit', tif: 'gtc', price: '3000', quantity: '0.01' }
    expect((await refused('orders.place', o)).code).toBe('WritesHalted')
    expect((await refused('transfer.submit', { from: owner(0), to: owner(2), assetId: 1, amount: '1' })).code).toBe('WritesHalted')
    expect((await refused('settle.submit', { creditAccount: owner(3), cashAccount: owner(0), assetId: 3, amount: '0.01' })).code).toBe(
      'WritesHalted',
    )
    expect((await refused('agents.approve', { owner: owner(2), slot: 0 })).code).toBe('WritesHalted')
    expect((await d.call<PolicyView>('policy.show')).halted).not.toBeNull()
    expect((await refused('policy.resume', { passphrase: 'wrong passphrase' })).code).toBe('PassphraseIncorrect')

    const p = await d.call<PolicyView>('policy.resume', { passphrase: TEST_PASSPHRASE })
    expect(p.halted).toBeNull()
    expect(p.events.map((e) => e.kind)).toEqual(expect.arrayContaining(['halt', 'halt.result', 'resume']))
    await d.call('policy.set', { name: 'max-order-usd', value: null, passphrase: TEST_PASSPHRASE })
  })

  it('naming the sandbox twice gets round nothing: saving a network needs the passphrase; the alias is halted with the desk and shares the policy (issue 21 item 2)', async () => {
    const alias = {
      name: 'sandbox-2',
      kind: 'custom',
      chainId: 424242,
      tradingUrl: d.sandbox.tradingUrl,
      wsUrl: d.sandbox.wsUrl,
      earnUrl: d.sandbox.earnUrl,
      infoRatePerSec: 200,
      tradeRatePerSec: 200,
    }
    expect((await refused('networks.save', alias)).code).toBe('PassphraseRequired')
    expect((await refused('networks.save', { ...alias, passphrase: 'not the passphrase' })).code).toBe('PassphraseIncorrect')
    expect((await d.call<{ networks: NetworkView[] }>('networks.list')).networks.map((n) => n.name)).not.toContain('sandbox-2')
    await d.call('networks.save', { ...alias, passphrase: TEST_PASSPHRASE })
    await d.call<HaltResult>('policy.halt')
    const o = { account: owner(1), marketId: '2', side: 'bid', orderType: 'limit', tif: 'gtc', price: '3000', quantity: '0.01' }
    try {
      await d.call('networks.select', { name: 'sandbox-2' })
      expect((await refused('orders.place', o)).code).toBe('WritesHalted')
      const p = await d.call<PolicyView>('policy.show')
      expect(p.network).toBe('sandbox-2')
      expect(p.halted).not.toBeNull()
      expect(p.exchange?.aliases).toEqual(expect.arrayContaining(['sandbox', 'sandbox-2']))
      expect(p.addresses.map((a) => a.label)).toEqual(['cold']) // the sandbox's address book
      expect(p.events.map((e) => e.kind)).toEqual(expect.arrayContaining(['network.save', 'exchange.alias', 'network.select', 'halt']))
      // the same service on another earn host is an exchange never seen: it starts halted (the halt is desk-wide) and strictest
      await d.call('networks.save', { ...alias, name: 'lab', earnUrl: 'http://127.0.0.1:9', passphrase: TEST_PASSPHRASE })
      await d.call('networks.select', { name: 'lab' })
      expect((await refused('orders.place', o)).code).toBe('WritesHalted')
      const lab = await d.call<PolicyView>('policy.show')
      expect(lab.rules.find((r) => r.name === 'withdraw-limit-usd')?.value).toBe('1000')
      expect(lab.rules.find((r) => r.name === 'transfer-daily-limit-usd')?.value).toBe('20')
      expect(lab.addresses).toEqual([])
    } finally {
      await d.call('networks.select', { name: 'sandbox' })
      await d.call('policy.resume', { passphrase: TEST_PASSPHRASE })
    }
  })

  it('removing a network (desk) needs the passphrase too, and is journaled', async () => {
    const cli = async (args: unknown) => {
      const r = await d.core.dispatch('networks.remove', args, { host: 'cli' })
      return r.ok ? 'removed' : r.error.code
    }
    expect(await cli({ name: 'lab' })).toBe('PassphraseRequired')
    expect(await cli({ name: 'lab', passphrase: 'not the passphrase' })).toBe('PassphraseIncorrect')
    expect(await cli({ name: 'lab', passphrase: TEST_PASSPHRASE })).toBe('removed')
    expect((await d.call<{ networks: NetworkView[] }>('networks.list')).networks.map((n) => n.name)).not.toContain('lab')
    expect((await d.call<PolicyView>('policy.show')).events.map((e) => e.kind)).toContain('network.remove')
  })

  it('agents.revokeAll revokes every occupied slot of an account', async () => {
    const before = await d.call<AgentSlotView[]>('agents.list', { owner: owner(0) })
    expect(before.filter((s) => s.agent !== null).length).toBe(2)
    const after = await d.call<AgentSlotView[]>('agents.revokeAll', { owner: owner(0) })
    expect(after.filter((s) => s.agent !== null)).toEqual([])
  })

  it('a damaged policy file refuses every write (never a default-allow) and is left untouched', async () => {
    const { readFileSync } = await import('node:fs')
    const file = policyFile()
    const good = readFileSync(file, 'utf8')
    writeFileSync(file, good.slice(0, 40))
    try {
      const o = { account: owner(1), marketId: '2', side: 'bid', orderType: 'limit', tif: 'gtc', price: '3000', quantity: '0.01' }
      expect((await refused('orders.place', o)).code).toBe('PolicyFileCorrupt')
      expect((await refused('transfer.submit', { from: owner(0), to: owner(2), assetId: 1, amount: '1' })).code).toBe('PolicyFileCorrupt')
      expect(readFileSync(file, 'utf8')).toBe(good.slice(0, 40))
    } finally {
      writeFileSync(file, good)
    }
  })

  it('no passphrase in the policy file or the policy journal', async () => {
    const { readFileSync } = await import('node:fs')
    expect(readFileSync(policyFile(), 'utf8')).not.toContain(TEST_PASSPHRASE)
    expect(JSON.stringify((await d.call<PolicyView>('policy.show')).events)).not.toContain(TEST_PASSPHRASE)
  })
})
