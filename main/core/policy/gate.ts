import { DeskError } from '../errors/desk-error'
import { currentCallContext } from '../ipc/dispatch'
import { formatAtoms, parseDecimal } from '../money/decimal'
import {
  markState,
  parsePositiveAmount,
  resolveAsset,
  USD_DECIMALS,
  usdAtMark,
  type MarketData,
  type MarketInfo,
  type NetworkSession,
  type SessionSource,
  type WriteContext,
} from '../session'
import type { PolicyEngine, PriceBandOverride, Valuer } from './engine'
import type { PolicyBook } from './policy-book'

/**
 * What the write handlers call before anything is signed: the selected network's policy engine
 * fed with the session's reads (marks, book, assets). A refusal here is a typed DeskError and
 * nothing reaches the submitter or the journal.
 */
export interface PolicyAccess {
  policy: PolicyBook
  sessions: SessionSource
}

export async function policyEngine(d: PolicyAccess): Promise<{ engine: PolicyEngine; session: NetworkSession }> {
  const session = await d.sessions.current()
  return { engine: d.policy.for(session.network), session }
}

/** Any write: refused while halted. */
export async function guardWrite(d: PolicyAccess, what: string): Promise<PolicyEngine> {
  const { engine, session } = await policyEngine(d)
  engine.requireWritable(what)
  passed(`Writes are not halted on ${session.name}`)
  return engine
}

/** Records a check this call passed; the confirmation dialog lists them. */
function passed(sentence: string): void {
  currentCallContext()?.checks?.push(sentence)
}

/** USD at current marks; a missing or stale mark refuses (never a guessed value). */
export function markValuer(md: MarketData, now: number): Valuer {
  return (assetId, atoms) => {
    const meta = md.assets.get(assetId)
    const st = markState(md, assetId, now)
    const name = meta?.symbol ?? `asset ${assetId}`
    if (!meta || !st.mark || st.stale) {
      const why =
        !st.mark || !meta
          ? 'no mark is published'
          : md.oracle.status !== 'available'
            ? `the oracle is unavailable (${md.oracle.reasonCode ?? 'no reason given'})`
            : `the mark is ${Math.round((st.ageMs ?? 0) / 1000)} s old`
      throw new DeskError(
        'MarkUnavailable',
        `cannot value ${name} in USD for the policy limits: ${why}. The write is refused rather than valued at a guess; retry when the mark is fresh.`,
        { code: 'MarkUnavailable', assetId },
      )
    }
    return usdAtMark(atoms, meta.decimals, st.mark.usdAtoms)
  }
}

/**
 * Market data for a policy decision: a cached answer showing the oracle down is fetched again
 * once. A preview (advisory: the submit asks again) takes the recent marks the live screens use,
 * so it never waits on the /info budget while they are at hand; the decision before signing
 * keeps the short cache, so an oracle outage refuses within seconds. Each mark's staleness is
 * judged on its own source time either way.
 */
async function marketData(session: NetworkSession, preview = false, order = false): Promise<MarketData> {
  // Before signing: read first in the /info budget (a write never waits behind screens). Funds
  // moves keep the short cache (an oracle outage refuses within seconds); an order's value check
  // takes marks fetched within WRITE_MARKS_MAX_FETCH_AGE_MS (each mark still judged on its own
  // source time), so an order needs no read of its own.
  const md = await (preview
    ? session.market.recent('operator')
    : order
      ? session.market.recent('write', WRITE_MARKS_MAX_FETCH_AGE_MS)
      : session.market.get('write'))
  if (md.oracle.status === 'available') return md
  session.market.invalidate()
  return session.market.get(preview ? 'operator' : 'write')
}

/** Marks fetched this recently decide an order (the desk refreshes them every few seconds in the background). */
const WRITE_MARKS_MAX_FETCH_AGE_MS = 30_000

async function valuer(session: NetworkSession, preview = false): Promise<Valuer> {
  return markValuer(await marketData(session, preview), session.now())
}

export interface MoveRequest {
  assetId: number | string
  amount: string
}

/** Checks a value move against the limits; returns its USD value at the marks it was checked with (null without a fresh mark). */
async function checkMove(
  engine: PolicyEngine,
  session: NetworkSession,
  ctx: WriteContext,
  kind: 'transfer' | 'withdraw',
  req: MoveRequest,
  preview = false,
): Promise<bigint | null> {
  const asset = await resolveAsset(ctx.reads, req.assetId)
  const amountAtoms = parsePositiveAmount(req.amount, asset.decimals)
  const value = await valuer(session, preview)
  engine.checkMove(kind, { assetId: asset.assetId, symbol: asset.symbol, decimals: asset.decimals, amountAtoms }, value)
  let usd: bigint | null
  try {
    usd = value(asset.assetId, amountAtoms)
  } catch {
    usd = null
  }
  // The confirmation shows the amount's USD value at the current mark, or none when there is no fresh mark.
  const call = currentCallContext()
  if (call) call.amountUsd = usd === null ? undefined : formatAtoms(usd, USD_DECIMALS)
  return usd
}

/** An amount's USD value at the current marks, or null when no fresh mark values it (for the record, never a refusal). */
export async function valueAtMarks(d: PolicyAccess, assetId: number, atoms: bigint): Promise<bigint | null> {
  try {
    return (await valuer(await d.sessions.current()))(assetId, atoms)
  } catch {
    return null
  }
}

/** A transfer: not halted, to one of the operator's accounts or a cooled-off address-book entry, within the limits. */
export async function guardTransfer(
  d: PolicyAccess,
  ctx: WriteContext,
  req: MoveRequest & { to: string },
  opts: { preview?: boolean } = {},
): Promise<bigint | null> {
  const { engine, session } = await policyEngine(d)
  engine.requireWritable('the transfer')
  engine.requireTransferDestination(req.to, d.policy.ownAccounts())
  const usd = await checkMove(engine, session, ctx, 'transfer', req, opts.preview)
  passed(`Writes are not halted on ${session.name}`)
  passed('Recipient is one of your accounts or an address-book entry past its cooling-off')
  passed('Within the transfer limits in force (per transaction and rolling 24 h)')
  return usd
}

/** A withdrawal: not halted, to a cooled-off address-book entry for that chain, within the limits. */
export async function guardWithdraw(
  d: PolicyAccess,
  ctx: WriteContext,
  req: MoveRequest & { dstAddress: string; dstChainId: string },
  opts: { preview?: boolean } = {},
): Promise<bigint | null> {
  const { engine, session } = await policyEngine(d)
  engine.requireWritable('the withdrawal')
  engine.requireWithdrawDestination(req.dstAddress, String(req.dstChainId))
  const usd = await checkMove(engine, session, ctx, 'withdraw', req, opts.preview)
  passed(`Writes are not halted on ${session.name}`)
  passed(`Destination is an address-book entry for chain ${req.dstChainId}, past its cooling-off`)
  passed('Within the withdrawal limits in force (per transaction and rolling 24 h)')
  return usd
}

export interface CheckedOrder {
  market: MarketInfo
  side: string
  price: string
  priceAtoms: string
  /** Notional in quote atoms (null when the quote asset is unknown). */
  notionalQuoteAtoms: string | null
  /** The top of the book the caller already holds (read within the last seconds), so the band needs no /info read of its own. */
  book?: { bid: string | null; ask: string | null }
}

/**
 * The reference an order's price is banded against: the far side of the book (best ask for a
 * buy, best bid for a sell), else the base/quote mark ratio; null when neither is known.
 */
async function referencePrice(
  session: NetworkSession,
  market: MarketInfo,
  side: 'bid' | 'ask',
  held?: { bid: string | null; ask: string | null },
  preview = false,
): Promise<{ atoms: bigint; source: string } | null> {
  const book = held
    ? { found: true as const, asks: held.ask === null ? [] : [{ price: held.ask }], bids: held.bid === null ? [] : [{ price: held.bid }] }
    : await session.info.l2Book({ market_id: market.marketId, depth: 1 }, { lane: 'write' })
  if (book.found) {
    const level = side === 'bid' ? book.asks[0] : book.bids[0]
    if (level) {
      try {
        return { atoms: parseDecimal(level.price, market.priceDecimals), source: `best ${side === 'bid' ? 'ask' : 'bid'} in the book` }
      } catch {
        // a book price finer than the market's decimals: fall back to the marks
      }
    }
  }
  if (market.baseAssetId === null || market.quoteAssetId === null) return null
  const md = await marketData(session, preview)
  const now = session.now()
  const base = markState(md, market.baseAssetId, now)
  const quote = markState(md, market.quoteAssetId, now)
  if (!base.mark || base.stale || !quote.mark || quote.stale || quote.mark.usdAtoms === 0n) return null
  return { atoms: (base.mark.usdAtoms * 10n ** BigInt(market.priceDecimals)) / quote.mark.usdAtoms, source: 'mark' }
}

/** The order ticket's view of the price band (contract OrderBandView). */
export interface OrderBandPreview {
  percent: string | null
  reference: string | null
  referenceSource: string | null
  breach: string | null
  confirmText: string | null
}

/**
 * The price band as `guardOrder` will judge this order at Place order (the same band, the same
 * reference: the far side of the book the ticket read, else the mark), without refusing or
 * journaling anything: the ticket says a breach, and the phrase that overrides it, before the
 * operator presses Place order. Advisory: the order is judged again before signing.
 */
export async function previewPriceBand(
  d: PolicyAccess,
  o: { market: MarketInfo; side: 'bid' | 'ask'; price: string; priceAtoms: bigint; book: { bid: string | null; ask: string | null } },
): Promise<OrderBandPreview> {
  const { engine, session } = await policyEngine(d)
  const m = o.market
  const reference = await referencePrice(session, m, o.side, o.book, true)
  const r = engine.priceBandOf({
    marketId: m.marketId,
    side: o.side,
    price: o.price,
    priceAtoms: o.priceAtoms,
    priceDecimals: m.priceDecimals,
    reference,
  })
  return {
    percent: r.band,
    reference: reference ? formatAtoms(reference.atoms, m.priceDecimals) : null,
    referenceSource: reference?.source ?? null,
    breach: r.breach,
    confirmText: r.breach ? r.confirmText : null,
  }
}

/** An order: not halted, within the maximum order value, inside the price band unless knowingly overridden. */
export async function guardOrder(d: PolicyAccess, order: CheckedOrder, override?: PriceBandOverride): Promise<bigint | null> {
  const { engine, session } = await policyEngine(d)
  engine.requireWritable('the order')
  const side = order.side === 'bid' || order.side === 'buy' ? 'bid' : 'ask'
  const m = order.market
  const md = await marketData(session, false, true)
  const value = (): bigint => {
    if (m.quoteAssetId === null || order.notionalQuoteAtoms === null) {
      throw new DeskError(
        'MarkUnavailable',
        `market ${m.marketId} has no known quote asset: its order value cannot be checked against max-order-usd, so the order is refused`,
        { code: 'MarkUnavailable' },
      )
    }
    return markValuer(md, session.now())(m.quoteAssetId, BigInt(order.notionalQuoteAtoms))
  }
  engine.checkOrderValue(value)
  // The order's USD value for the record (the decision step); without a fresh mark it is unknown, not refused (no maximum set).
  let usd: bigint | null
  try {
    usd = value()
  } catch {
    usd = null
  }
  const reference = await referencePrice(session, m, side, order.book)
  engine.checkPriceBand(
    { marketId: m.marketId, side, price: order.price, priceAtoms: BigInt(order.priceAtoms), priceDecimals: m.priceDecimals, reference },
    override,
  )
  passed(`Writes are not halted on ${session.name}`)
  passed('Order value within the maximum in force')
  passed(
    override
      ? 'Price outside the band: overridden knowingly for this order (journaled)'
      : 'Price within the band around the mark and the book',
  )
  return usd
}
