import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import type { DeskError } from '../errors/desk-error'
import { type Journal } from '../journal'
import { openTempJournal } from '../journal/testing/temp-journal'
import { DAY_MS, PolicyBook, exchangeIdentity, exchangeKey, policyFilePath, serviceOrigin } from '.'

const PW = 'the passphrase'
const DEST = '0x52908400098527886E0F7030069857D2E4169EE7'
const SANDBOX = {
  name: 'sandbox',
  kind: 'sandbox',
  chainId: 424242,
  tradingUrl: 'http://127.0.0.1:47100',
  earnUrl: 'http://127.0.0.1:47100',
}
/** The attack: the sandbox's own URLs (spelt differently) under another name. */
const ALIAS = {
  name: 'sandbox-2',
  kind: 'custom',
  chainId: 424242,
  tradingUrl: 'http://LOCALHOST:47100/',
  earnUrl: 'http://127.0.0.1:47100/pool',
}
const MAINNET = { name: 'mainnet', kind: 'mainnet', chainId: 696969, tradingUrl: 'https://trade.example', earnUrl: 'https://earn.example' }
const order = {
  marketId: 2,
  side: 'bid' as const,
  price: '34505',
  priceAtoms: 3450500n,
  priceDecimals: 2,
  reference: { atoms: 345050n, source: 'best ask' },
}

function codeOf(f: () => unknown): string {
  try {
    f()
  } catch (e) {
    return (e as DeskError).code
  }
  return 'no error'
}

describe('policy book: the policy belongs to the exchange, the halt to the desk (issue 21 item 2)', () => {
  let dir: string
  let journal: Journal
  let t: number
  let book: PolicyBook
  const newBook = () =>
    new PolicyBook({ dataDir: dir, journal, now: () => t, verifyPassphrase: async (p) => p === PW, ownAccounts: () => [] })

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'policy-book-'))
    t = Date.UTC(2026, 0, 1)
    journal = openTempJournal({ now: () => t })
    book = newBook()
  })
  afterEach(async () => {
    await journal.close()
    rmSync(dir, { recursive: true, force: true })
  })

  it('normalises service hosts: scheme, host and port only; localhost is the loopback address', () => {
    expect(serviceOrigin('http://LOCALHOST:47100/x?y')).toBe('http://127.0.0.1:47100')
    expect(serviceOrigin('https://Trade.Example/')).toBe('https://trade.example:443')
    expect(serviceOrigin('http://2130706433:47100')).toBe('http://127.0.0.1:47100')
    expect(exchangeKey(exchangeIdentity(ALIAS))).toBe(exchangeKey(exchangeIdentity(SANDBOX)))
    expect(exchangeKey(exchangeIdentity({ ...ALIAS, chainId: 1 }))).not.toBe(exchangeKey(exchangeIdentity(SANDBOX)))
  })

  it('an alias with the sandbox URLs is the same exchange: halted with it, same limits, bands and address book; its moves count', async () => {
    const sandbox = book.for(SANDBOX)
    await sandbox.set('withdraw-daily-limit-usd', '100')
    await sandbox.set('price-band', '2')
    await sandbox.addAddress({ label: 'cold', address: DEST, chainId: '1', passphrase: PW })
    sandbox.halt()
    const alias = book.for(ALIAS)
    expect(codeOf(() => alias.requireWritable('the order'))).toBe('WritesHalted')
    expect(alias.value('withdraw-daily-limit-usd')).toBe('100')
    expect(alias.value('price-band')).toBe('2')
    expect(codeOf(() => alias.checkPriceBand(order))).toBe('PriceOutsideBand')
    expect(alias.state().addresses.map((a) => a.label)).toEqual(['cold'])
    expect(alias.state().exchange.aliases).toEqual(['sandbox-2', 'sandbox'])
    // a loosening through the alias is the exchange's loosening (passphrase, cooling-off)
    expect(await alias.set('price-band', null, PW)).toEqual({ applied: false, effectiveAt: t + 60_000 })
    expect(sandbox.value('price-band')).toBe('2')
    // a withdrawal journaled under the alias counts against the sandbox's rolling limit
    journal.record({
      channel: 'trade',
      key: `0x${'1'.padStart(32, '0')}`,
      network: 'sandbox-2',
      account: DEST,
      signer: DEST,
      actionType: 'withdraw',
      summary: 'w',
      nonce: '1',
      body: JSON.stringify({ action: { asset_id: '1', amount: '90000000' }, nonce: '1' }),
    })
    await sandbox.resume(PW)
    const oneToOne = (_id: number, atoms: bigint) => atoms * 100n
    expect(
      codeOf(() => sandbox.checkMove('withdraw', { assetId: 1, symbol: 'USDC', decimals: 6, amountAtoms: 20_000_000n }, oneToOne)),
    ).toBe('LimitExceeded')
    expect(journal.policyEvents('sandbox-2').map((e) => e.kind)).toContain('exchange.alias')
  })

  it('a halt is desk-wide: every network, every exchange, and after a restart', async () => {
    book.for(SANDBOX).halt()
    expect(codeOf(() => book.for(MAINNET).requireWritable('the order'))).toBe('WritesHalted')
    expect(
      codeOf(() =>
        newBook()
          .for({ ...MAINNET, name: 'other', kind: 'custom', chainId: 7 })
          .requireWritable('the order'),
      ),
    ).toBe('WritesHalted')
    expect(book.for(MAINNET).state().halted).toEqual({ since: t })
    await book.for(MAINNET).resume(PW)
    book.for(SANDBOX).requireWritable('the order')
    expect(journal.policyEvents('(desk)').map((e) => e.kind)).toEqual(['resume', 'halt'])
  })

  it('an exchange never seen starts with the strictest value of each rule the desk keeps, and an empty address book', async () => {
    const main = book.for(MAINNET)
    await main.set('transfer-limit-usd', '50')
    await main.set('withdraw-limit-usd', '500')
    const sandbox = book.for(SANDBOX)
    expect(sandbox.value('transfer-limit-usd')).toBe('50') // seen second: it starts from the mainnet's
    await sandbox.set('withdraw-limit-usd', '100')
    await sandbox.set('price-band', '2')
    await sandbox.set('price-band:7', '1')
    await sandbox.addAddress({ label: 'cold', address: DEST, chainId: '1', passphrase: PW })
    // the sandbox's URLs on another earn host: a different exchange, never seen
    const fresh = book.for({ ...SANDBOX, name: 'lab', kind: 'custom', earnUrl: 'http://127.0.0.1:9' })
    expect(fresh.value('withdraw-limit-usd')).toBe('100')
    expect(fresh.value('transfer-limit-usd')).toBe('50')
    expect(fresh.value('price-band')).toBe('2')
    expect(fresh.value('price-band:7')).toBe('1')
    expect(fresh.coolingOffMs()).toBe(DAY_MS) // the mainnet's real-network default is the strictest
    expect(fresh.state().addresses).toEqual([])
    expect(journal.policyEvents('lab').map((e) => e.kind)).toEqual(['exchange.new'])
    // the first exchange of a new desk has the defaults
    const other = mkdtempSync(join(tmpdir(), 'policy-book-'))
    try {
      const first = new PolicyBook({
        dataDir: other,
        journal,
        now: () => t,
        verifyPassphrase: async () => true,
        ownAccounts: () => [],
      }).for(SANDBOX)
      expect(first.state()).toMatchObject({ coolingOffMs: 60_000, sandboxDefaults: true })
    } finally {
      rmSync(other, { recursive: true, force: true })
    }
  })

  it('migrates a per-name policy file to the exchange without losing anything (halt included); the old file is kept aside', () => {
    const legacy = policyFilePath(dir, 'sandbox')
    const doc = {
      version: 1,
      network: 'sandbox',
      rules: { 'withdraw-limit-usd': '15', 'cooling-off': '1500' },
      pending: [{ name: 'withdraw-limit-usd', value: '1000', requestedAt: t - 1000, effectiveAt: t + 500 }],
      addresses: [{ label: 'cold', address: DEST, chainId: '1', addedAt: t - 5000, usableAt: t - 3500 }],
      halted: { since: t - 100 },
    }
    writeFileSync(legacy, JSON.stringify(doc))
    // a second name for the same exchange, kept by an earlier version with a stricter limit
    writeFileSync(
      policyFilePath(dir, 'sandbox-2'),
      JSON.stringify({ ...doc, network: 'sandbox-2', rules: { 'withdraw-limit-usd': '10' }, pending: [], addresses: [], halted: null }),
    )
    const e = book.for(SANDBOX)
    expect(e.value('withdraw-limit-usd')).toBe('15')
    expect(e.coolingOffMs()).toBe(1500)
    expect(e.state().rules.find((r) => r.name === 'withdraw-limit-usd')!.pending).toMatchObject({ value: '1000' })
    expect(e.state().addresses).toMatchObject([{ label: 'cold', usable: true }])
    expect(e.state().halted).toEqual({ since: t - 100 })
    expect(existsSync(legacy)).toBe(false)
    expect(JSON.parse(readFileSync(`${legacy}.migrated`, 'utf8'))).toEqual(doc)
    // the alias's file merges in: the stricter limit wins, nothing else is dropped
    const alias = book.for(ALIAS)
    expect(alias.value('withdraw-limit-usd')).toBe('10')
    expect(alias.state().addresses).toHaveLength(1)
    expect(e.value('withdraw-limit-usd')).toBe('10')
    expect(journal.policyEvents('sandbox').map((x) => x.kind)).toEqual(['policy.migrated'])
  })
})
