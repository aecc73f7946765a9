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
})
