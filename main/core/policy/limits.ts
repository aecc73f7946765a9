import { formatPercent, formatTime } from '../../contract/format'
import { DeskError } from '../errors/desk-error'
import { formatAtoms, parseDecimal } from '../money/decimal'
import { DAY_MS, scaled, unitsToAtoms } from './rules'
import type { UsageEntry } from './usage'

/** USD figures use the spec's usd_atoms scale (10^8). */
const USD = 8

export type MoveKind = 'transfer' | 'withdraw'

/** A value move to check against the limits. */
export interface Move {
  assetId: number
  symbol: string
  decimals: number
  amountAtoms: bigint
}

/** USD atoms of an amount at the current mark; throws `MarkUnavailable` when the mark is missing or stale. */
export type Valuer = (assetId: number, atoms: bigint) => bigint

export interface OrderBandCheck {
  marketId: number
  side: 'bid' | 'ask'
  /** The limit (or protection) price as typed, and in atoms at the market's price decimals. */
  price: string
  priceAtoms: bigint
  priceDecimals: number
  /** The far side of the book (best ask for a buy, best bid for a sell), else the mark; null if neither is known. */
  reference: { atoms: bigint; source: string } | null
}

export interface PriceBandOverride {
  priceBand: true
  confirmText: string
}

const usd = (atoms: bigint): string => formatAtoms(atoms, USD)
/** A time in an error message: the host's zone, named (never an ISO stamp); screens show their own with the age. */
export const at = (ms: number): string => formatTime(ms, { zone: true })

/** What the move limits are checked against: the rules in force, the time, and the journaled moves. */
export interface MoveLimits {
  /** A rule's value in force (null: off). */
  rule(name: string): string | null
  now: number
  usage(kind: MoveKind, since: number): UsageEntry[]
}

/** Per-transaction and rolling-24 h limits, in USD at current marks and in asset units where set. */
export function checkMove(limits: MoveLimits, kind: MoveKind, m: Move, value: Valuer): void {
  const t = limits.now
  const what = `${kind} of ${formatAtoms(m.amountAtoms, m.decimals)} ${m.symbol}`
  const perAsset = limits.rule(`${kind}-asset-limit:${m.assetId}`)
  if (perAsset !== null) {
    const limit = unitsToAtoms(perAsset, m.decimals, `${kind}-asset-limit:${m.assetId}`)
    if (m.amountAtoms > limit)
      refuseLimit(
        `${kind}-asset-limit:${m.assetId}`,
        `${what} exceeds the per-transaction limit of ${perAsset} ${m.symbol}`,
        perAsset,
        '0',
        formatAtoms(m.amountAtoms, m.decimals),
        null,
      )
  }
  const perTx = limits.rule(`${kind}-limit-usd`)
  let amountUsd: bigint | null = null
  if (perTx !== null) {
    amountUsd = value(m.assetId, m.amountAtoms)
    const limit = parseDecimal(perTx, USD)
    if (amountUsd > limit)
      refuseLimit(
        `${kind}-limit-usd`,
        `${what} (${usd(amountUsd)} USD at the current mark) exceeds the per-transaction limit of ${perTx} USD`,
        perTx,
        '0',
        usd(amountUsd),
        null,
      )
  }
  const dailyAsset = limits.rule(`${kind}-asset-daily-limit:${m.assetId}`)
  const dailyUsd = limits.rule(`${kind}-daily-limit-usd`)
  if (dailyAsset === null && dailyUsd === null) return
  const since = t - DAY_MS
  const used = limits.usage(kind, since).filter((e) => e.at > since)
  if (dailyAsset !== null) {
    const name = `${kind}-asset-daily-limit:${m.assetId}`
    const limit = unitsToAtoms(dailyAsset, m.decimals, name)
    const mine = used.filter((e) => e.assetId === m.assetId).map((e) => ({ at: e.at, v: e.amountAtoms }))
    const total = mine.reduce((s, e) => s + e.v, 0n)
    if (total + m.amountAtoms > limit) {
      refuseLimit(
        name,
        `${what} would exceed the rolling 24 h limit of ${dailyAsset} ${m.symbol}`,
        dailyAsset,
        formatAtoms(total, m.decimals),
        formatAtoms(m.amountAtoms, m.decimals),
        freesAt(mine, total, m.amountAtoms, limit),
      )
    }
  }
  if (dailyUsd !== null) {
    const name = `${kind}-daily-limit-usd`
    amountUsd ??= value(m.assetId, m.amountAtoms)
    const limit = parseDecimal(dailyUsd, USD)
    const valued = used.map((e) => ({ at: e.at, v: value(e.assetId, e.amountAtoms) }))
    const total = valued.reduce((s, e) => s + e.v, 0n)
    if (total + amountUsd > limit) {
      refuseLimit(
        name,
        `${what} (${usd(amountUsd)} USD at the current mark) would exceed the rolling 24 h limit of ${dailyUsd} USD`,
        dailyUsd,
        usd(total),
        usd(amountUsd),
        freesAt(valued, total, amountUsd, limit),
      )
    }
  }
}

function refuseLimit(rule: string, head: string, limit: string, used: string, amount: string, frees: number | null): never {
  const window = rule.includes('daily') ? `; already used in the last 24 h: ${used}` : ''
  const when = rule.includes('daily')
    ? frees === null
      ? '; this amount alone is over the limit, so waiting frees no room'
      : `; room for it frees up at ${at(frees)}`
    : ''
  throw new DeskError('LimitExceeded', `${head}${window}${when}. Nothing was signed.`, {
    code: 'LimitExceeded',
    rule,
    limit,
    used,
    amount,
    freesAt: frees,
  })
}

/** Maximum order value in USD (notional at the quote asset's current mark). */
export function checkOrderValue(max: string | null, notionalUsd: () => bigint): void {
  if (max === null) return
  const v = notionalUsd()
  if (v > parseDecimal(max, USD))
    refuseLimit(
      'max-order-usd',
      `the order's value ${usd(v)} USD at the current mark exceeds the maximum order value of ${max} USD`,
      max,
      '0',
      usd(v),
      null,
    )
}

/** The phrase the operator types to place one order outside the band. */
export function overridePhrase(o: Pick<OrderBandCheck, 'side' | 'marketId' | 'price'>): string {
  return `${o.side === 'bid' ? 'BUY' : 'SELL'} MARKET ${o.marketId} AT ${o.price}`
}

/**
 * Why an order breaks the band (null: inside it, or no band): the rule `checkPriceBand` refuses by,
 * without refusing, so the order ticket says it before Place order.
 */
export function priceBandBreach(band: string | null, o: OrderBandCheck): string | null {
  if (band === null) return null
  let reason: string | null = null
  if (o.reference === null) {
    reason =
      `there is no reference price for market ${o.marketId} (no ${o.side === 'bid' ? 'ask' : 'bid'} in the book and no fresh mark), so the ` +
      `${formatPercent(band)} band cannot be checked`
  } else {
    // price vs reference * (100 ± band) / 100, exactly (percent at 18 decimals)
    const hundred = scaled('100')
    const b = scaled(band)
    const ref = o.reference.atoms
    const outside = o.side === 'bid' ? o.priceAtoms * hundred > ref * (hundred + b) : o.priceAtoms * hundred < ref * (hundred - b)
    if (outside) {
      const refText = formatAtoms(ref, o.priceDecimals)
      reason =
        `a ${o.side === 'bid' ? 'buy' : 'sell'} at ${o.price} is more than ${formatPercent(band)} ${o.side === 'bid' ? 'above' : 'below'} ` +
        `the reference ${refText} (${o.reference.source}) in market ${o.marketId}`
    }
  }
  return reason
}

/**
 * Refuses an order priced more than the band through the reference (the far side of the book,
 * else the mark), unless this order carries the knowing override (the exact phrase), which is journaled (`log`).
 * `band`: the market's own band, else the global band in force (rules.valueWithSource); null: off.
 */
export function checkPriceBand(
  band: string | null,
  o: OrderBandCheck,
  override: PriceBandOverride | undefined,
  log: (kind: string, summary: string, detail: unknown) => void,
): { overridden: boolean } {
  if (band === null) return { overridden: false }
  const phrase = overridePhrase(o)
  const reason = priceBandBreach(band, o)
  if (reason === null) return { overridden: false }
  if (override?.priceBand === true && override.confirmText === phrase) {
    log('override.priceBand', `price band overridden for one order: ${reason}`, {
      marketId: o.marketId,
      side: o.side,
      price: o.price,
      band,
      reference: o.reference ? { atoms: o.reference.atoms.toString(), source: o.reference.source } : null,
    })
    return { overridden: true }
  }
  const mismatch = override ? ' The confirmation text given does not match.' : ''
  throw new DeskError(
    'PriceOutsideBand',
    `${reason}: refused before signing.${mismatch} To place it anyway, confirm knowingly by typing: ${phrase}`,
    {
      code: 'PriceOutsideBand',
      band,
      marketId: o.marketId,
      reference: o.reference ? formatAtoms(o.reference.atoms, o.priceDecimals) : null,
      referenceSource: o.reference?.source ?? null,
      confirmText: phrase,
    },
  )
}

/** When enough of the window's oldest usage leaves the 24 h window for `amount` to fit. */
export function freesAt(entries: { at: number; v: bigint }[], used: bigint, amount: bigint, limit: bigint): number | null {
  if (amount > limit) return null
  let u = used
  for (const e of [...entries].sort((a, b) => a.at - b.at)) {
    u -= e.v
    if (u + amount <= limit) return e.at + DAY_MS
  }
  return null
}
