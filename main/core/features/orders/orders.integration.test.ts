import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { devOwner } from '../../../../sandbox/scenario/dev-keys'
import type { ConfirmRequest, OrderPreviewView, WriteOutcome } from '../../../contract/types'
import { startDeskOnSandbox, TEST_PASSPHRASE, type DeskOnSandbox } from '../../../testing/desk-on-sandbox'

/**
 * Against the sandbox: the ticket's preview and the order's price band share one book read
 * (within the rate budget), and every owner-key confirmation names its signer.
 */
describe('order preview and signer in confirmations (desk on the sandbox)', () => {
  let d: DeskOnSandbox
  const seen: ConfirmRequest[] = []
  let stop: (() => void) | undefined
  let stopSeen: (() => void) | undefined
  const owner = (i: number) => devOwner(i).address

  beforeAll(async () => {
    d = await startDeskOnSandbox()
    await d.call('vault.create', { passphrase: TEST_PASSPHRASE })
    await d.call('accounts.importSandboxKeys')
    stopSeen = d.core.events.subscribe((event, payload) => {
      if (event === 'confirm.request') seen.push(payload as ConfirmRequest)
    })
    stop = d.autoConfirm()
  })
  afterAll(async () => {
    stop?.()
    stopSeen?.()
    vi.restoreAllMocks()
    await d?.close()
  })

  it('previews with the best bid and offer and places the order banded on the same book read (one l2Book request)', async () => {
    const books: string[] = []
    const real = globalThis.fetch
    vi.spyOn(globalThis, 'fetch').mockImplementation(async (input, init) => {
      if (typeof init?.body === 'string' && init.body.includes('"l2Book"')) books.push(init.body)
      return real(input, init)
    })
    const p = await d.call<OrderPreviewView>('orders.preview', { account: owner(0), marketId: '2', side: 'bid' })
    expect(p.book.bid).not.toBeNull()
    expect(p.book.ask).not.toBeNull()
    expect(p.market.tickSize).toMatch(/^0\.0*1$/)
    expect(p.signer?.owner.toLowerCase()).toBe(owner(0).toLowerCase())
    expect(p.dataAgeMs).toBeLessThanOrEqual(p.dataMaxAgeMs)
    const price = (BigInt(p.book.bid!.price.split('.')[0]!) * 9n) / 10n
    const typed = await d.call<OrderPreviewView>('orders.preview', {
      account: owner(0),
      marketId: '2',
      side: 'bid',
      price: price.toString(),
      quantity: '0.5',
    })
    expect(typed.value).toBe(price % 2n === 0n ? (price / 2n).toString() : `${price / 2n}.5`)
    const out = await d.call<WriteOutcome>('orders.place', {
      account: owner(0),
      marketId: '2',
      side: 'bid',
      orderType: 'limit',
      tif: 'gtc',
      price: price.toString(),
      quantity: '0.5',
    })
    expect(out.leaves[0]).toMatchObject({ kind: 'open' })
    expect(books).toHaveLength(1)
    vi.restoreAllMocks()
    // The journal finds it by the oid the answer named.
    const found = await d.call<{ cloid: string; oids?: string[] }[]>('journal.query', { q: out.leaves[0]!.oid! })
    expect(found.map((s) => s.cloid)).toEqual([out.submission.cloid])
  })

  it('every owner-key confirmation names the signing key (transfer, settle, earn)', async () => {
    seen.length = 0
    await d.call<WriteOutcome>('transfer.submit', { from: owner(0), to: owner(2), assetId: 1, amount: '1' })
    await d.call<WriteOutcome>('settle.submit', { creditAccount: owner(3), cashAccount: owner(0), assetId: 3, amount: '0.01' })
    await d.call('earn.create', { account: owner(2), assetId: 1, amount: '5', type: 'scheduled' })
    expect(seen).toHaveLength(3)
    const signers = seen.map((r) => r.details?.signer)
    expect(signers.map((s) => s?.role)).toEqual(['owner', 'owner', 'owner'])
    expect(signers.map((s) => s?.address.toLowerCase())).toEqual([owner(0), owner(3), owner(2)].map((a) => a.toLowerCase()))
    // Named as the operator knows the account.
    expect(signers.every((s) => (s?.label ?? '').length > 0)).toBe(true)
  })

  it('an owner-key order asks first (declined: nothing signed); an API-key order and a cancel do not ask', async () => {
    stop?.()
    seen.length = 0
    const decline = d.core.events.subscribe((event, payload) => {
      if (event === 'confirm.request')
        void d.core.dispatch('confirm.respond', { id: (payload as ConfirmRequest).id, approved: false }, { host: 'test' })
    })
    const order = { account: owner(1), marketId: '2', side: 'bid', orderType: 'limit', tif: 'gtc', price: '3000', quantity: '0.01' }
    const before = await d.call<unknown[]>('journal.query', {})
    await expect(d.call('orders.place', order)).rejects.toMatchObject({ code: 'ConfirmationDeclined' })
    decline()
    expect(seen).toHaveLength(1)
    expect(seen[0]!.title).toBe('Buy 0.01 ETH at 3,000 USDC on ETH/USDC')
    expect(seen[0]!.summary.join('\n')).toMatch(/Order value: 30 \S+/)
    expect(seen[0]!.details?.signer).toMatchObject({ role: 'owner' })
    expect(seen[0]!.details?.action).toMatchObject({ type: 'order', price: '3000', quantity: '0.01' })
    expect(await d.call<unknown[]>('journal.query', {})).toHaveLength(before.length)

    // Approved, it is placed; its cancel asks nothing.
    stop = d.autoConfirm()
    const placed = await d.call<WriteOutcome>('orders.place', order)
    expect(placed.leaves[0]).toMatchObject({ kind: 'open' })
    expect(seen).toHaveLength(2)
    stop()
    stop = undefined
    const cancelled = await d.call<WriteOutcome>('orders.cancel', { account: owner(1), marketId: '2', oid: placed.leaves[0]!.oid })
    expect(cancelled.leaves[0]).toMatchObject({ kind: 'cancelled' })
    expect(seen).toHaveLength(2)

    // With an approved API key in the vault the account's orders are signed by it, without a dialog.
    stop = d.autoConfirm()
    await d.call('agents.approve', { owner: owner(1), slot: 3 })
    stop()
    stop = undefined
    const asked = seen.length
    const byAgent = await d.call<WriteOutcome>('orders.place', { ...order, price: '3001' })
    expect(byAgent.leaves[0]).toMatchObject({ kind: 'open' })
    expect(seen).toHaveLength(asked)
  })

  it('the preview says a price-band breach before Place order, with the phrase main will ask for, and places nothing', async () => {
    const first = await d.call<OrderPreviewView>('orders.preview', { account: owner(1), marketId: '2', side: 'bid' })
    expect(first.band).toBeNull() // no price typed yet
    const ask = first.book.ask!.price
    const inside = await d.call<OrderPreviewView>('orders.preview', {
      account: owner(1),
      marketId: '2',
      side: 'bid',
      price: String(Math.floor(Number(ask) * 0.9)),
      quantity: '0.01',
    })
    expect(inside.band).toMatchObject({ percent: '5', breach: null, confirmText: null, referenceSource: 'best ask in the book' })
    expect(inside.problems.join('\n')).not.toMatch(/price band/)
    const far = String(Math.ceil(Number(ask) * 1.2))
    const before = await d.call<unknown[]>('journal.query', {})
    const outside = await d.call<OrderPreviewView>('orders.preview', {
      account: owner(1),
      marketId: '2',
      side: 'bid',
      price: far,
      quantity: '0.01',
    })
    expect(outside.band?.breach).toMatch(new RegExp(`a buy at ${far} is more than 5% above the reference`))
    expect(outside.band?.confirmText).toBe(`BUY MARKET 2 AT ${far}`)
    expect(outside.problems.join('\n')).toMatch(/outside the price band/)
    // Place order is refused by the same rule, with the same phrase.
    await expect(
      d.call('orders.place', {
        account: owner(1),
        marketId: '2',
        side: 'bid',
        orderType: 'limit',
        tif: 'gtc',
        price: far,
        quantity: '0.01',
      }),
    ).rejects.toMatchObject({ code: 'PriceOutsideBand', message: expect.stringContaining(`BUY MARKET 2 AT ${far}`) })
    expect(await d.call<unknown[]>('journal.query', {})).toHaveLength(before.length)
  })
})
