import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { DeskError } from '../errors/desk-error'
import { type Journal } from '../journal'
import { openTempJournal } from '../journal/testing/temp-journal'
import { DAY_MS, PolicyEngine, checkDestination, journalUsage, type UsageEntry } from '.'

const PW = 'the passphrase'
const USDC = { assetId: 1, symbol: 'USDC', decimals: 6 }
const usdc = (n: string) => ({ ...USDC, amountAtoms: BigInt(Math.round(Number(n) * 1e6)) })
/** 1 USDC = 1 USD (usd atoms 10^8). */
const oneToOne = (_id: number, atoms: bigint) => atoms * 100n
const DEST = '0x52908400098527886E0F7030069857D2E4169EE7' // EIP-55 test vector
const MAINNET = { name: 'mainnet', kind: 'mainnet', chainId: 696969, tradingUrl: 'https://trade.example', earnUrl: 'https://earn.example' }
const SANDBOX = {
  name: 'sandbox',
  kind: 'sandbox',
  chainId: 424242,
  tradingUrl: 'http://127.0.0.1:47100',
  earnUrl: 'http://127.0.0.1:47100',
}

function codeOf(f: () => unknown): string {
  try {
    f()
  } catch (e) {
    return (e as DeskError).code
  }
  return 'no error'
}
async function codeOfAsync(f: () => Promise<unknown>): Promise<string> {
  try {
    await f()
  } catch (e) {
    return (e as DeskError).code
  }
  return 'no error'
}

describe('policy engine (fake time)', () => {
  let dir: string
  let journal: Journal
  let t: number
  let usage: UsageEntry[]
  const engine = (kind = 'mainnet') =>
    new PolicyEngine({
      dataDir: dir,
      network: kind === 'sandbox' ? SANDBOX : MAINNET,
      journal,
      now: () => t,
      verifyPassphrase: async (p) => p === PW,
      usage: () => usage,
    })

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'policy-'))
    journal = openTempJournal({ now: () => t })
    t = Date.UTC(2026, 0, 1)
    usage = []
  })
  afterEach(async () => {
    await journal.close()
    rmSync(dir, { recursive: true, force: true })
  })

  it('checks destinations: EIP-55 checksum when mixed case, zero and burn addresses refused', () => {
    expect(checkDestination(DEST)).toBe(DEST)
    expect(checkDestination(DEST.toLowerCase())).toBe(DEST)
    expect(codeOf(() => checkDestination(DEST.replace('E7', 'e7')))).toBe('InvalidAddressChecksum')
    expect(codeOf(() => checkDestination('0x' + '0'.repeat(40)))).toBe('BurnAddress')
    expect(codeOf(() => checkDestination('0x000000000000000000000000000000000000dEaD'))).toBe('BurnAddress')
    expect(codeOf(() => checkDestination('0x0000000000000000000000000000000000000001'))).toBe('BurnAddress')
  })

  it('an address-book entry is usable only after the cooling-off (24 h real, 60 s sandbox), with the passphrase, journaled', async () => {
    const e = engine()
    expect(await codeOfAsync(() => e.addAddress({ label: 'cold', address: DEST, chainId: '1', passphrase: 'wrong' }))).toBe(
      'PassphraseIncorrect',
    )
    expect(codeOf(() => e.requireWithdrawDestination(DEST, '1'))).toBe('DestinationNotAllowed')
    const added = await e.addAddress({ label: 'cold', address: DEST.toLowerCase(), chainId: '1', passphrase: PW })
    expect(added).toMatchObject({ address: DEST, usableAt: t + DAY_MS, usable: false })
    expect(codeOf(() => e.requireWithdrawDestination(DEST, '1'))).toBe('DestinationCoolingOff')
    expect(codeOf(() => e.requireWithdrawDestination(DEST, '2'))).toBe('DestinationNotAllowed')
    t += DAY_MS - 1
    expect(codeOf(() => e.requireWithdrawDestination(DEST, '1'))).toBe('DestinationCoolingOff')
    t += 1
    e.requireWithdrawDestination(DEST, '1')
    e.requireTransferDestination(DEST, [])
    // removal is immediate
    await e.removeAddress({ label: 'COLD', passphrase: PW })
    expect(codeOf(() => e.requireWithdrawDestination(DEST, '1'))).toBe('DestinationNotAllowed')
    expect(journal.policyEvents('mainnet').map((x) => x.kind)).toEqual(['address.remove', 'address.add'])
    expect(JSON.stringify(journal.policyEvents('mainnet'))).not.toContain(PW)

    const s = engine('sandbox')
    expect(s.state()).toMatchObject({ coolingOffMs: 60_000, sandboxDefaults: true })
    await s.addAddress({ label: 'x', address: DEST, chainId: '1', passphrase: PW })
    try {
      s.requireWithdrawDestination(DEST, '1')
      expect.unreachable()
    } catch (err) {
      expect((err as DeskError).message).toContain('sandbox default is 60 seconds')
    }
  })

  it('transfers go to own accounts without the address book', () => {
    const e = engine()
    e.requireTransferDestination(DEST, [DEST.toLowerCase()])
    expect(codeOf(() => e.requireTransferDestination(DEST, []))).toBe('DestinationNotAllowed')
  })

  it('per-transaction and per-asset limits; a missing mark refuses rather than guesses', async () => {
    const e = engine()
    await e.set('withdraw-limit-usd', '1000')
    e.checkMove('withdraw', usdc('1000'), oneToOne)
    expect(codeOf(() => e.checkMove('withdraw', usdc('1000.01'), oneToOne))).toBe('LimitExceeded')
    e.checkMove('transfer', usdc('5000'), oneToOne) // transfers have their own limit (off)
    const noMark = () => {
      throw new DeskError('MarkUnavailable', 'stale')
    }
    expect(codeOf(() => e.checkMove('withdraw', usdc('1'), noMark))).toBe('MarkUnavailable')
    await e.set('transfer-asset-limit:1', '10')
    expect(codeOf(() => e.checkMove('transfer', usdc('10.5'), oneToOne))).toBe('LimitExceeded')
    e.checkMove('transfer', usdc('10'), oneToOne)
  })

  it('rolling 24 h limit: refusal carries limit, used and when room frees up', async () => {
    const e = engine()
    await e.set('withdraw-daily-limit-usd', '1000')
    usage = [
      { at: t - 20 * 3_600_000, assetId: 1, amountAtoms: 600_000_000n, submissionId: 1 },
      { at: t - 2 * 3_600_000, assetId: 1, amountAtoms: 300_000_000n, submissionId: 2 },
    ]
    e.checkMove('withdraw', usdc('100'), oneToOne)
    try {
      e.checkMove('withdraw', usdc('200'), oneToOne)
      expect.unreachable()
    } catch (err) {
      const d = err as DeskError
      expect(d.code).toBe('LimitExceeded')
      expect(d.details).toMatchObject({
        rule: 'withdraw-daily-limit-usd',
        limit: '1000',
        used: '900',
        amount: '200',
        freesAt: t - 20 * 3_600_000 + DAY_MS,
      })
    }
    // once the oldest use leaves the window, there is room
    t += 4 * 3_600_000 + 1
    e.checkMove('withdraw', usdc('200'), oneToOne)
    // an amount over the limit on its own never frees up
    try {
      e.checkMove('withdraw', usdc('1500'), oneToOne)
    } catch (err) {
      expect((err as DeskError).details).toMatchObject({ freesAt: null })
    }
  })

  it('a USD limit never reads a value it cannot price as zero: the move, an earlier one, or an order refuses (issue 30.2)', async () => {
    const e = engine()
    await e.set('transfer-daily-limit-usd', '1000')
    // Priced: USDC (asset 1); not priced now: asset 2 (its mark is stale).
    const onlyUsdc = (id: number, atoms: bigint) => {
      if (id !== 1) throw new DeskError('MarkUnavailable', 'stale')
      return oneToOne(id, atoms)
    }
    usage = [{ at: t - 3_600_000, assetId: 2, amountAtoms: 1n, submissionId: 1 }]
    expect(codeOf(() => e.checkMove('transfer', usdc('1'), onlyUsdc))).toBe('MarkUnavailable')
    usage = []
    e.checkMove('transfer', usdc('1'), onlyUsdc)
    expect(codeOf(() => e.checkMove('transfer', { ...usdc('1'), assetId: 2 }, onlyUsdc))).toBe('MarkUnavailable')
    await e.set('max-order-usd', '1000')
    expect(
      codeOf(() =>
        e.checkOrderValue(() => {
          throw new DeskError('MarkUnavailable', 'stale')
        }),
      ),
    ).toBe('MarkUnavailable')
  })

  it('tightening applies at once; loosening needs the passphrase and waits for the cooling-off', async () => {
    const e = engine()
    await e.set('transfer-limit-usd', '1000')
    expect(e.value('transfer-limit-usd')).toBe('1000')
    await e.set('transfer-limit-usd', '500') // tighter: no passphrase
    expect(e.value('transfer-limit-usd')).toBe('500')
    expect(await codeOfAsync(() => e.set('transfer-limit-usd', '2000'))).toBe('PassphraseRequired')
    expect(await codeOfAsync(() => e.set('transfer-limit-usd', '2000', 'nope'))).toBe('PassphraseIncorrect')
    const r = await e.set('transfer-limit-usd', '2000', PW)
    expect(r).toEqual({ applied: false, effectiveAt: t + DAY_MS })
    expect(e.value('transfer-limit-usd')).toBe('500')
    expect(e.state().rules.find((x) => x.name === 'transfer-limit-usd')).toMatchObject({
      value: '500',
      pending: { value: '2000', effectiveAt: t + DAY_MS },
    })
    t += DAY_MS
    expect(e.value('transfer-limit-usd')).toBe('2000')
    expect(e.state().rules.find((x) => x.name === 'transfer-limit-usd')!.pending).toBeNull()
    // turning a rule off is loosening; narrowing the band and lengthening the cooling-off are tightening
    expect(await codeOfAsync(() => e.set('transfer-limit-usd', null))).toBe('PassphraseRequired')
    await e.set('price-band', '2')
    expect(e.value('price-band')).toBe('2')
    await e.set('cooling-off', '48h', PW) // a longer cooling-off needs the passphrase too (issue 21 item 4)
    expect(e.coolingOffMs()).toBe(2 * DAY_MS)
    await e.set('cooling-off', '1h', PW)
    expect(e.coolingOffMs()).toBe(2 * DAY_MS)
    t += 2 * DAY_MS
    expect(e.coolingOffMs()).toBe(3_600_000)
    // a tightening replaces a pending loosening of the same rule
    await e.set('price-band', '10', PW)
    await e.set('price-band', '1')
    t += 10 * DAY_MS
    expect(e.value('price-band')).toBe('1')
    const kinds = journal.policyEvents('mainnet').map((x) => x.kind)
    expect(kinds).toContain('policy.pending')
    expect(kinds).toContain('policy.applied')
    expect(await codeOfAsync(() => e.set('no-such-rule', '1'))).toBe('UnknownPolicy')
    expect(await codeOfAsync(() => e.set('price-band', '1.5%'))).toBe('InvalidPolicyValue')
  })

  it('price band: refused beyond the band unless the exact phrase is typed (journaled); per-market override', async () => {
    const e = engine()
    const o = {
      marketId: 3,
      side: 'bid' as const,
      price: '106',
      priceAtoms: 10600n,
      priceDecimals: 2,
      reference: { atoms: 10000n, source: 'best ask' },
    }
    e.checkPriceBand({ ...o, price: '105', priceAtoms: 10500n })
    let phrase = ''
    try {
      e.checkPriceBand(o)
      expect.unreachable()
    } catch (err) {
      const d = err as DeskError
      expect(d.code).toBe('PriceOutsideBand')
      phrase = String(d.details!.confirmText)
    }
    expect(phrase).toBe('BUY MARKET 3 AT 106')
    expect(codeOf(() => e.checkPriceBand(o, { priceBand: true, confirmText: 'yes' }))).toBe('PriceOutsideBand')
    expect(e.checkPriceBand(o, { priceBand: true, confirmText: phrase })).toEqual({ overridden: true })
    expect(journal.policyEvents('mainnet')[0]!.kind).toBe('override.priceBand')
    // sells below the band; no reference refuses
    expect(codeOf(() => e.checkPriceBand({ ...o, side: 'ask', price: '94', priceAtoms: 9400n }))).toBe('PriceOutsideBand')
    expect(codeOf(() => e.checkPriceBand({ ...o, reference: null }))).toBe('PriceOutsideBand')
    await e.set('price-band:3', '10', PW)
    t += DAY_MS
    e.checkPriceBand(o)
  })

  it('halt refuses every write until resume with the passphrase, and survives a restart', async () => {
    const e = engine()
    e.halt()
    expect(codeOf(() => e.requireWritable('the order'))).toBe('WritesHalted')
    expect(codeOf(() => engine().requireWritable('the order'))).toBe('WritesHalted')
    expect(await codeOfAsync(() => e.resume('wrong'))).toBe('PassphraseIncorrect')
    await e.resume(PW)
    e.requireWritable('the order')
  })

  it('a damaged policy file refuses every check (never a silent default-allow) and is left untouched', () => {
    const file = engine().policyFile
    writeFileSync(file, '{"version":1,')
    const e = engine()
    expect(codeOf(() => e.requireWritable('the order'))).toBe('PolicyFileCorrupt')
    expect(codeOf(() => e.requireWithdrawDestination(DEST, '1'))).toBe('PolicyFileCorrupt')
    writeFileSync(
      file,
      JSON.stringify({ version: 1, network: 'mainnet', rules: { 'price-band': 5 }, pending: [], addresses: [], halted: null }),
    )
    expect(codeOf(() => e.requireWritable('the order'))).toBe('PolicyFileCorrupt')
  })

  it('usage comes from the journal: counts executed and unresolved moves, not rejected ones', () => {
    const body = (amount: string) =>
      JSON.stringify({
        action: { type: 'withdraw', asset_id: '1', amount, dst_chain_id: '1', dst_address: DEST, withdraw_nonce: '1' },
        nonce: '1',
      })
    const rec = (n: number, amount: string) =>
      journal.record({
        channel: 'trade',
        key: `0x${String(n).padStart(32, '0')}`,
        network: 'mainnet',
        account: DEST,
        signer: DEST,
        actionType: 'withdraw',
        summary: 'w',
        nonce: String(n),
        body: body(amount),
      })
    const a = rec(1, '100')
    journal.update(a.id, { state: 'sent' })
    journal.update(a.id, { state: 'accepted' })
    const b = rec(2, '200')
    journal.update(b.id, { state: 'sent' })
    journal.update(b.id, { state: 'rejected', code: 'X' })
    rec(3, '300') // signed, fate unknown: counts
    const c = rec(4, '400')
    journal.update(c.id, { state: 'reconciled', finalStatus: 'notexecuted' })
    expect(journalUsage(journal, 'mainnet', 'withdraw', t - DAY_MS).map((u) => u.amountAtoms)).toEqual([100n, 300n])
  })
})

describe('policy engine: loosenings cannot pass as tightenings (issue 21 items 3, 4; issue 24 item 3)', () => {
  let dir: string
  let journal: Journal
  let t: number
  const engine = () =>
    new PolicyEngine({ dataDir: dir, network: MAINNET, journal, now: () => t, verifyPassphrase: async (p) => p === PW, usage: () => [] })
  const tenX = {
    marketId: 1,
    side: 'bid' as const,
    price: '1000',
    priceAtoms: 100000n,
    priceDecimals: 2,
    reference: { atoms: 10000n, source: 'best ask' },
  }

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'policy-'))
    journal = openTempJournal({ now: () => t })
    t = Date.UTC(2026, 0, 1)
  })
  afterEach(async () => {
    await journal.close()
    rmSync(dir, { recursive: true, force: true })
  })

  it("a market's band follows the global band: turning it off or wider is a loosening (passphrase, cooling-off)", async () => {
    const e = engine()
    expect(e.value('price-band:1')).toBe('5')
    expect(await codeOfAsync(() => e.set('price-band:1', null))).toBe('PassphraseRequired')
    expect(await codeOfAsync(() => e.set('price-band:1', '50'))).toBe('PassphraseRequired')
    expect(e.value('price-band:1')).toBe('5')
    expect(codeOf(() => e.checkPriceBand(tenX))).toBe('PriceOutsideBand')
    // with the passphrase it waits out the cooling-off; the band still applies meanwhile
    expect(await e.set('price-band:1', null, PW)).toEqual({ applied: false, effectiveAt: t + DAY_MS })
    expect(codeOf(() => e.checkPriceBand(tenX))).toBe('PriceOutsideBand')
    // a tighter market band applies at once, and follows no later global change
    await e.set('price-band:2', '1')
    expect(e.value('price-band:2')).toBe('1')
    await e.set('price-band', '3')
    expect(e.value('price-band:1')).toBe('3')
    expect(e.value('price-band:2')).toBe('1')
  })

  it('events say what actually applied: the default band, percent and USD formatted, durations in words, no ISO stamps', async () => {
    const e = engine()
    await e.set('price-band:1', '4.5')
    await e.set('withdraw-limit-usd', '250000')
    await e.set('withdraw-limit-usd', '300000', PW)
    await e.addAddress({ label: 'cold', address: DEST, chainId: '1', passphrase: PW })
    e.halt()
    t += 90_000
    await e.resume(PW)
    t += DAY_MS
    e.value('withdraw-limit-usd') // the pending loosening applies
    const events = journal.policyEvents('mainnet').concat(journal.policyEvents('(desk)'))
    const summary = (kind: string) => events.find((x) => x.kind === kind)!.summary
    expect(events.find((x) => x.kind === 'policy.set' && x.summary.startsWith('price-band:1'))!.summary).toBe(
      'price-band:1: 5% (default) -> 4.5% (tightened, in force now)',
    )
    expect(summary('policy.pending')).toBe(
      'withdraw-limit-usd: $250,000.00 -> $300,000.00 (loosened; in force after the 1 day cooling-off)',
    )
    expect(summary('address.add')).toContain('usable after the 1 day cooling-off')
    expect(summary('resume')).toBe('writes resumed on every network after a halt of 1 minute 30 seconds')
    expect(summary('policy.applied')).toBe('withdraw-limit-usd is now $300,000.00 (the cooling-off is over)')
    for (const ev of events) {
      expect(ev.summary, ev.kind).not.toMatch(/\d{4}-\d{2}-\d{2}T\d{2}:\d{2}/)
      expect(ev.summary, ev.kind).not.toMatch(/\b\d+ ?ms\b|\b\d+m \d+s\b/)
    }
    // the times are in the event's detail, for a screen to show in the operator's zone
    expect(events.find((x) => x.kind === 'policy.pending')!.detail).toMatchObject({ times: { effectiveAt: Date.UTC(2026, 0, 1) + DAY_MS } })
  })

  it('no change without the passphrase delays later changes: raising the cooling-off needs it (365 d refused), cutting it back waits at most the old one', async () => {
    const e = engine()
    expect(await codeOfAsync(() => e.set('cooling-off', '365d'))).toBe('PassphraseRequired')
    expect(e.coolingOffMs()).toBe(DAY_MS)
    // the operator's own loosening still waits only the cooling-off in force before
    await e.set('withdraw-limit-usd', '100')
    const r = await e.set('withdraw-limit-usd', null, PW)
    expect(r.effectiveAt).toBe(t + DAY_MS)
    // "set it back" with the passphrase: in force at once (it is what is in force)
    expect((await e.set('cooling-off', '24h', PW)).effectiveAt).toBeLessThanOrEqual(t + DAY_MS)
    expect(e.coolingOffMs()).toBe(DAY_MS)
    // the operator may still raise it knowingly (passphrase): at once; cutting it back then waits the raised one, their own choice
    await e.set('cooling-off', '2d', PW)
    expect(e.coolingOffMs()).toBe(2 * DAY_MS)
    expect((await e.set('cooling-off', '24h', PW)).effectiveAt).toBe(t + 2 * DAY_MS)
  })
})
