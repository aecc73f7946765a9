import type { Address } from 'viem'
import type { BookLevelView, ConfirmSigner, OrderBandView, OrderPreviewView } from '../../../contract/types'
import { formatAmount, formatNumber } from '../../../contract/format'
import { DeskError } from '../../errors/desk-error'
import type { InfoClient } from '../../exchange/info/client'
import { formatAtoms, parseDecimal } from '../../money/decimal'
import type { MarketData } from '../../session/market-data'
import { markState } from '../../session/market-data'
import type { MarketInfo } from '../../session/account-reads'
import { DEFAULT_DATA_MAX_AGE_MS, LiveAccountReads } from '../../session/live-reads'
import { checkAddress, type WriteContext } from '../../session/write-context'
import { tradingSignerFor, type AgentKeys } from '../../session/trading-signer'

/** The top of one market's book as read, with when it was read. */
export interface BookTop {
  bid: BookLevelView | null
  ask: BookLevelView | null
  readAt: number
  lastChangeMs: number | null
}

/** How long a book read is reused: the ticket refreshes every few seconds on a 1 request/s /info budget. */
export const BOOK_TTL_MS = 3_000

/** An order is banded against a book read at most this long ago (the ticket refreshes it every 4 s; a band is percents wide). */
export const BOOK_WRITE_MAX_AGE_MS = 15_000

/** The preview names the signing key from a userAgents read kept this long (placing re-reads it: the epoch must be current). */
export const SIGNER_TTL_MS = 15_000

/**
 * Best bid and offer per market through `/info l2Book` (depth 1) in the operator lane, one read
 * shared by every caller within `ttlMs`, so a ticket left open costs at most one request per TTL.
 * The session does not subscribe market channels (its sockets are kept for account channels).
 */
export class BookTops {
  private readonly cache = new Map<number, { at: number; value: Promise<BookTop>; lane: 'operator' | 'write'; settled: boolean }>()
  /** market -> the latest answered read */
  private readonly settled = new Map<number, { at: number; value: Promise<BookTop> }>()
  constructor(
    private readonly info: Pick<InfoClient, 'l2Book'>,
    private readonly now: () => number,
    private readonly ttlMs = BOOK_TTL_MS,
  ) {}

  get(marketId: number): Promise<BookTop> {
    const hit = this.cache.get(marketId)
    if (hit && this.now() - hit.at < this.ttlMs) return hit.value
    return this.read(marketId, 'operator')
  }

  /**
   * The book an order is banded against: the read the ticket made (it refreshes every few
   * seconds while open) when within BOOK_WRITE_MAX_AGE_MS, else one read first in the /info
   * budget, ahead of every screen's read.
   */
  forWrite(marketId: number): Promise<BookTop> {
    const hit = this.cache.get(marketId)
    // A read still queued behind the screens' reads is not waited for: the last answer within
    // the limit is used, else the write reads on its own.
    if (hit && this.now() - hit.at < BOOK_WRITE_MAX_AGE_MS && (hit.settled || hit.lane === 'write')) return hit.value
    const last = this.settled.get(marketId)
    if (last && this.now() - last.at < BOOK_WRITE_MAX_AGE_MS) return last.value
    return this.read(marketId, 'write')
  }

  private read(marketId: number, lane: 'operator' | 'write'): Promise<BookTop> {
    const at = this.now()
    const value = this.info.l2Book({ market_id: marketId, depth: 1 }, { lane }).then((b): BookTop => {
      if (!b.found) throw new DeskError('UnknownMarket', `the service has no book for market ${marketId}`, { market: marketId })
      const lvl = (l: { price: string; quantity: string } | undefined) => (l ? { price: l.price, size: l.quantity } : null)
      return { bid: lvl(b.bids[0]), ask: lvl(b.asks[0]), readAt: this.now(), lastChangeMs: b.last_update_ts_ms ?? null }
    })
    const entry = { at, value, lane, settled: false }
    this.cache.set(marketId, entry)
    value.then(
      () => {
        entry.settled = true
        this.settled.set(marketId, entry)
      },
      () => {
        if (this.cache.get(marketId) === entry) this.cache.delete(marketId)
      },
    )
    return value
  }
}

const books = new WeakMap<object, BookTops>()
const signers = new WeakMap<object, Map<string, { at: number; value: Promise<ConfirmSigner> }>>()

/** The key that would sign `account`'s orders now, read at most every SIGNER_TTL_MS per session. */
function signerFor(ctx: WriteContext & { keys: AgentKeys }, session: object, now: () => number, account: Address): Promise<ConfirmSigner> {
  let m = signers.get(session)
  if (!m) signers.set(session, (m = new Map()))
  const key = account.toLowerCase()
  const hit = m.get(key)
  if (hit && now() - hit.at < SIGNER_TTL_MS) return hit.value
  const value = tradingSignerFor(ctx, account).then((s): ConfirmSigner =>
    s.ref.role === 'agent'
      ? { role: 'agent', slot: s.ref.slot, label: '', address: s.address as Address, owner: account }
      : { role: 'owner', label: '', address: account, owner: account },
  )
  m.set(key, { at: now(), value })
  value.catch(() => m.delete(key))
  return value
}
/** One book cache per network session (a network switch starts a new one). */
export function bookTopsFor(session: { info: Pick<InfoClient, 'l2Book'>; now: () => number }): BookTops {
  let b = books.get(session)
  if (!b) books.set(session, (b = new BookTops(session.info, session.now)))
  return b
}

export interface OrderPreviewRequest {
  account: string
  marketId: string
  side: 'bid' | 'ask'
  price?: string
  quantity?: string
}

const unit = (decimals: number) => formatAtoms(1n, decimals)

/**
 * The order ticket's facts before Place order, from live state: the market's tick, minimum size
 * and minimum notional, best bid and offer, the order value (price x quantity, exact), what is
 * available to spend, the key that will sign, and the age of the data used. Data past the
 * 30 s limit is refused with StaleData, as the write previews do.
 */
export async function previewOrder(
  ctx: WriteContext & { keys: AgentKeys },
  o: {
    books: BookTops
    marketData: () => Promise<MarketData>
    now: () => number
    /** The operator's price band for this order (policy), judged as at Place order on the same book read. */
    band?: (order: {
      market: MarketInfo
      side: 'bid' | 'ask'
      price: string
      priceAtoms: bigint
      book: { bid: string | null; ask: string | null }
    }) => Promise<OrderBandView>
  },
  req: OrderPreviewRequest,
): Promise<OrderPreviewView> {
  const account = checkAddress(req.account, 'account') as Address
  const market = (await ctx.reads.markets()).find((m) => String(m.marketId) === req.marketId)
  if (!market) throw new DeskError('UnknownMarket', `no market ${req.marketId} on this network`, { market: req.marketId })
  const [assets, minimums, book, md] = await Promise.all([
    ctx.reads.assets(),
    ctx.reads.quoteMinimums(),
    o.books.get(market.marketId),
    o.marketData(),
  ])
  const sym = (id: number | null) => (id === null ? '?' : (assets.find((a) => a.assetId === id)?.symbol ?? `asset ${id}`))
  const baseSymbol = sym(market.baseAssetId)
  const quoteSymbol = sym(market.quoteAssetId)
  const minAtoms = market.quoteAssetId === null ? undefined : minimums.get(market.quoteAssetId)
  const problems: string[] = []
  const warnings: string[] = []

  const parse = (text: string | undefined, decimals: number, what: string, step: string): bigint | null => {
    if (text === undefined || text.trim() === '') return null
    try {
      const v = parseDecimal(text, decimals)
      if (v <= 0n) problems.push(`${what} must be greater than zero`)
      return v
    } catch {
      problems.push(
        `${what} "${text.trim().slice(0, 40)}" is not a multiple of ${step} (at most ${decimals} decimals): the service refuses it`,
      )
      return null
    }
  }
  const price = parse(req.price, market.priceDecimals, 'price', unit(market.priceDecimals))
  const qty = parse(req.quantity, market.baseQuantityDecimals, 'quantity', unit(market.baseQuantityDecimals))

  // Exact value: price atoms x quantity atoms carry price_decimals + base_quantity_decimals places.
  const valueDecimals = market.priceDecimals + market.baseQuantityDecimals
  const valueAtoms = price !== null && qty !== null ? price * qty : null
  const value = valueAtoms === null ? null : formatAtoms(valueAtoms, valueDecimals)
  if (valueAtoms !== null && minAtoms !== undefined) {
    // minimum (quote atoms) on the same scale as the value
    const shift = valueDecimals - market.quoteBalanceDecimals
    const minScaled = shift >= 0 ? minAtoms * 10n ** BigInt(shift) : minAtoms / 10n ** BigInt(-shift)
    if (valueAtoms < minScaled)
      problems.push(
        `order value ${formatAmount(value!, { symbol: quoteSymbol })} is below the minimum ` +
          `${formatAmount(minAtoms, { symbol: quoteSymbol, decimals: market.quoteBalanceDecimals })} (MinTradeSpotNtl)`,
      )
  }

  // What the order spends: quote for a buy (the value), base for a sell (the quantity).
  let available: OrderPreviewView['available'] = null
  const line = await ctx.reads.creditLine(account)
  if (!line.isCredit) {
    const balances = await ctx.reads.balances(account)
    const spendId = req.side === 'bid' ? market.quoteAssetId : market.baseAssetId
    const b = balances.find((x) => x.assetId === spendId)
    const spendSymbol = req.side === 'bid' ? quoteSymbol : baseSymbol
    available = { units: b?.available ?? '0', symbol: spendSymbol }
    const need = req.side === 'bid' ? value : qty === null ? null : formatAtoms(qty, market.baseQuantityDecimals)
    if (need !== null) {
      const scale = 36
      try {
        if (parseDecimal(need, scale) > parseDecimal(available.units, scale))
          problems.push(
            `needs ${formatAmount(need, { symbol: spendSymbol })}, only ${formatAmount(available.units, { symbol: spendSymbol })} is available ` +
              `(InsufficientSpotBalance)`,
          )
      } catch {
        // more than 36 decimals cannot come from a market's precision
      }
    }
  } else if (line.status !== 'active') {
    problems.push('this credit account is frozen and cannot trade')
  } else if (!market.creditTrading && !line.whitelistedMarketIds.includes(String(market.marketId))) {
    problems.push(
      `market ${market.symbol ?? `${baseSymbol}/${quoteSymbol}`} is not open to credit accounts and not whitelisted for this account`,
    )
  }

  let markPrice: string | null = null
  if (market.baseAssetId !== null && market.quoteAssetId !== null) {
    const now = o.now()
    const b = markState(md, market.baseAssetId, now)
    const q = markState(md, market.quoteAssetId, now)
    if (b.mark && !b.stale && q.mark && !q.stale && q.mark.usdAtoms > 0n)
      markPrice = formatAtoms((b.mark.usdAtoms * 10n ** BigInt(market.priceDecimals)) / q.mark.usdAtoms, market.priceDecimals)
  }
  if (
    price !== null &&
    req.side === 'bid' &&
    book.ask &&
    parseDecimal(book.ask.price, 36) < parseDecimal(formatAtoms(price, market.priceDecimals), 36)
  )
    warnings.push(`buys above the best offer ${formatNumber(book.ask.price)} ${quoteSymbol}: it crosses the book at once`)
  if (
    price !== null &&
    req.side === 'ask' &&
    book.bid &&
    parseDecimal(book.bid.price, 36) > parseDecimal(formatAtoms(price, market.priceDecimals), 36)
  )
    warnings.push(`sells below the best bid ${formatNumber(book.bid.price)} ${quoteSymbol}: it crosses the book at once`)

  // The price band, said before Place order: the same rule and reference main refuses the order by.
  let band: OrderBandView | null = null
  if (price !== null && price > 0n && o.band) {
    try {
      band = await o.band({
        market,
        side: req.side,
        price: req.price!.trim(),
        priceAtoms: price,
        book: { bid: book.bid?.price ?? null, ask: book.ask?.price ?? null },
      })
      if (band.breach) problems.push(`outside the price band: ${band.breach}; Place order is refused unless you type the override phrase`)
    } catch (e) {
      if (!(e instanceof DeskError)) throw e
      problems.push(`the price band cannot be checked: ${e.message}`)
    }
  }

  let signer: ConfirmSigner | null = null
  try {
    signer = await signerFor(ctx, o.books /* one per session */, o.now, account)
  } catch (e) {
    if (!(e instanceof DeskError)) throw e
    problems.push(e.message)
  }

  // Age: the oldest of the book read and the account data used; refused past the limit.
  const reads = ctx.reads instanceof LiveAccountReads ? ctx.reads : null
  const maxAge = reads?.dataMaxAgeMs ?? DEFAULT_DATA_MAX_AGE_MS
  const accountAge = reads ? reads.dataAgeMs([account]) : 0
  const bookAge = Math.max(0, o.now() - book.readAt)
  const age = Math.max(bookAge, accountAge ?? 0)
  if (age > maxAge) {
    throw new DeskError(
      'StaleData',
      `the ticket's data is ${Math.round(age / 1000)} s old, over the ${Math.round(maxAge / 1000)} s limit; refresh before placing`,
      { ageMs: age, limitMs: maxAge },
    )
  }

  return {
    market: {
      marketId: String(market.marketId),
      symbol: market.symbol ?? `${baseSymbol}/${quoteSymbol}`,
      baseSymbol,
      quoteSymbol,
      tickSize: unit(market.priceDecimals),
      minSize: unit(market.baseQuantityDecimals),
      minNotional: minAtoms === undefined ? null : formatAtoms(minAtoms, market.quoteBalanceDecimals),
      priceDecimals: market.priceDecimals,
      baseQuantityDecimals: market.baseQuantityDecimals,
      maxPriceSigFigs: market.maxPriceSigFigs,
    },
    book: { bid: book.bid, ask: book.ask, readAt: book.readAt, lastChangeMs: book.lastChangeMs, source: 'info' },
    markPrice,
    value,
    available,
    signer,
    problems,
    warnings,
    dataAgeMs: age,
    dataMaxAgeMs: maxAge,
    band,
  }
}
