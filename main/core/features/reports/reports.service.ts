import type { PnlReport, PnlRow } from '../../../contract/types'
import { DeskError } from '../../errors/desk-error'
import type { Fill, FillGap } from '../../exchange/info/client'
import { outcomeOf, type Submission } from '../../journal'
import { formatAtoms, parseAtoms, parseDecimal } from '../../money/decimal'
import type { NetworkSession } from '../../session'
import { exportName, isoUtc, toCsv, type CsvValue } from './csv'
import { currencyChoices, resolveCurrency, type CurrencyChoice, type ReportCurrency } from './currency'
import { catalogue, type Catalogue, type UsdValue } from './market-meta'
import { fmtValue, PNL_METHOD_NOTE, realisedPnl, type PnlFill } from './pnl'

export interface ReportAccount {
  address: string
  label: string
}

export interface ReportRange {
  account?: string | undefined
  fromMs: number
  toMs: number
  /** 'USD' (default) or the symbol of a listed asset with a live mark */
  currency?: string | undefined
}

export const FILL_COLUMNS = [
  'time_utc',
  'time_ms',
  'account',
  'account_label',
  'market_id',
  'market',
  'side',
  'role',
  'price',
  'quantity',
  'base_asset',
  'notional',
  'quote_asset',
  'fee',
  'fee_asset',
  'fee_mode',
  'tid',
  'oid',
  'cloid',
  'value_currency',
  'value',
  'value_basis',
  'value_note',
] as const

export const TRANSFER_COLUMNS = [
  'time_utc',
  'time_ms',
  'account',
  'account_label',
  'kind',
  'counterparty',
  'amount',
  'asset',
  'fee',
  'fee_asset',
  'fee_note',
  'status',
  'source',
  'reference',
  'value_currency',
  'value',
  'value_basis',
  'value_note',
] as const

type FillRow = Record<(typeof FILL_COLUMNS)[number], CsvValue>
type TransferRow = Record<(typeof TRANSFER_COLUMNS)[number], CsvValue>

/** A fill of one account, normalised from the /info shape (market id, price and size under either name). */
interface AccountFill {
  account: ReportAccount
  fill: Fill
  marketId: number | null
  price: string | null
  quantity: string | null
}

const MAX_RANGE_MS = 366 * 24 * 3600_000

function checkRange(r: { fromMs: number; toMs: number }): void {
  if (r.toMs <= r.fromMs) throw new DeskError('InvalidRange', 'the end of the range must be after its start ([from, to) is empty)')
  if (r.toMs - r.fromMs > MAX_RANGE_MS) throw new DeskError('InvalidRange', 'a report covers at most 366 days')
}

/**
 * The value columns: the chosen currency at the marks of export time (no history of marks is
 * kept), the marks used (price and time) in the note, or 'unknown' with the reason.
 */
function valueCells(
  v: UsdValue,
  currency: ReportCurrency,
): { value_currency: string; value: string; value_basis: string; value_note: string } {
  if (v.basis === 'unknown') return { value_currency: currency.code, value: 'unknown', value_basis: 'unknown', value_note: v.reason }
  return {
    value_currency: currency.code,
    value: v.value,
    value_basis: 'current-mark',
    value_note: `converted at export-time marks: ${v.marks}; the mark at the event time is not kept`,
  }
}

/**
 * Exports and realised PnL, computed in main from the exchange's own data (fills by time with
 * paging, deposit and withdraw records) and the journal (transfers, settles, repays the desk
 * sent). Amounts stay exact decimal strings in the asset's units, with the asset's symbol.
 */
export class ReportsService {
  constructor(
    private readonly s: NetworkSession,
    private readonly accounts: () => readonly ReportAccount[],
  ) {}

  private select(account: string | undefined): ReportAccount[] {
    const all = this.accounts()
    if (account === undefined) {
      // Never an empty export that looks like "nothing happened".
      if (all.length === 0) throw new DeskError('NoAccounts', 'There are no accounts to report on: unlock the vault or name an account.')
      return [...all]
    }
    const a = all.find((x) => x.address.toLowerCase() === account.toLowerCase())
    // An address the operator does not hold still reads from the exchange (a watched counterparty).
    return [a ?? { address: account, label: '' }]
  }

  private async fills(accounts: readonly ReportAccount[], fromMs: number): Promise<{ fills: AccountFill[]; gaps: string[] }> {
    const out: AccountFill[] = []
    const gaps: string[] = []
    for (const account of accounts) {
      const list = await this.s.info.allFillsSince(account.address, fromMs, { lane: 'operator' })
      for (const f of list) {
        const marketId = f.market_id ?? (f.coin !== undefined && /^[0-9]+$/.test(f.coin) ? Number(f.coin) : null)
        out.push({ account, fill: f, marketId, price: f.price ?? f.px ?? null, quantity: f.quantity ?? f.sz ?? null })
      }
      gaps.push(
        ...list.gaps.map(
          (g: FillGap) =>
            `${account.address}: more than ${g.seen} fills at ${isoUtc(g.timeMs)}; those past the first page could not be read`,
        ),
      )
    }
    return { fills: out, gaps }
  }

  async fillsCsv(r: ReportRange): Promise<{ filename: string; mime: string; content: string }> {
    checkRange(r)
    const accounts = this.select(r.account)
    const cat = await catalogue(this.s)
    // Refused before any fill is read: a bad or unpriced currency is the operator's to fix.
    const currency = resolveCurrency(r.currency, cat.md, cat.now)
    const { fills, gaps } = await this.fills(accounts, r.fromMs)
    if (gaps.length > 0)
      throw new DeskError('FillsIncomplete', `fills could not all be read, so the export would be incomplete: ${gaps.join('; ')}`)
    const rows = fills
      .filter((x) => x.fill.time >= r.fromMs && x.fill.time < r.toMs)
      .sort((a, b) => a.fill.time - b.fill.time || a.account.address.localeCompare(b.account.address) || (a.fill.tid < b.fill.tid ? -1 : 1))
      .map((x) => fillRow(x, cat, currency))
    const name = exportName(r.account ? `fills-${r.account.toLowerCase()}` : 'fills-all-accounts', r.fromMs, r.toMs)
    return { filename: name, mime: 'text/csv', content: toCsv(FILL_COLUMNS, rows) }
  }

  async transfersCsv(r: ReportRange): Promise<{ filename: string; mime: string; content: string }> {
    checkRange(r)
    const accounts = this.select(r.account)
    const cat = await catalogue(this.s)
    const currency = resolveCurrency(r.currency, cat.md, cat.now)
    const rows: TransferRow[] = []
    const own = new Map(this.accounts().map((a) => [a.address.toLowerCase(), a]))
    const exchangeWithdrawCloids = new Set<string>()
    for (const account of accounts) {
      const [deps, wds] = await Promise.all([
        this.s.info.deposits({ user: account.address }, { lane: 'operator' }),
        this.s.info.withdraws({ user: account.address }, { lane: 'operator' }),
      ])
      for (const d of deps.deposits) {
        const row = exchangeRow(cat, currency, account, 'deposit', d as Record<string, unknown>)
        if (row) rows.push(row)
      }
      for (const w of wds) {
        const rec = w as Record<string, unknown>
        if (typeof rec.cloid === 'string') exchangeWithdrawCloids.add(rec.cloid.toLowerCase())
        const row = exchangeRow(cat, currency, account, 'withdrawal', rec)
        if (row) rows.push(row)
      }
    }
    // Journaled writes that move value: the desk's own record (the exchange's record wins for withdrawals it still lists).
    const wanted = new Set(accounts.map((a) => a.address.toLowerCase()))
    const subs = this.s.journal.list({
      network: this.s.name,
      actionType: ['transfer', 'withdraw', 'settle', 'repay'],
      since: r.fromMs - 1,
      order: 'oldest',
    })
    for (const sub of subs) {
      if (sub.actionType === 'withdraw' && exchangeWithdrawCloids.has(sub.key.toLowerCase())) continue
      for (const row of journalRows(cat, currency, sub, own)) if (wanted.has(String(row.account).toLowerCase())) rows.push(row)
    }
    const inRange = rows.filter((x) => typeof x.time_ms === 'number' && x.time_ms >= r.fromMs && x.time_ms < r.toMs)
    inRange.sort(
      (a, b) =>
        (a.time_ms as number) - (b.time_ms as number) ||
        String(a.account).localeCompare(String(b.account)) ||
        String(a.reference).localeCompare(String(b.reference)),
    )
    const name = exportName(r.account ? `transfers-${r.account.toLowerCase()}` : 'transfers-all-accounts', r.fromMs, r.toMs)
    return { filename: name, mime: 'text/csv', content: toCsv(TRANSFER_COLUMNS, inRange) }
  }

  /** The currencies an export may use now: USD, and every asset whose mark is live. */
  async currencies(): Promise<CurrencyChoice[]> {
    const cat = await catalogue(this.s)
    return currencyChoices(cat.md, cat.now)
  }

  async pnl(q: { account?: string | undefined; fromMs?: number | undefined; toMs?: number | undefined }): Promise<PnlReport> {
    if (q.fromMs !== undefined && q.toMs !== undefined) checkRange({ fromMs: q.fromMs, toMs: q.toMs })
    const accounts = this.select(q.account)
    // Every fill the service still has builds the lots; the range only picks which closings count.
    const [cat, { fills, gaps }] = await Promise.all([catalogue(this.s), this.fills(accounts, 0)])
    const groups = new Map<string, { account: ReportAccount; marketId: number; fills: PnlFill[] }>()
    const unknownMarket = new Map<string, number>()
    for (const x of fills) {
      if (x.marketId === null || !cat.markets.has(x.marketId) || x.price === null || x.quantity === null) {
        unknownMarket.set(x.account.address, (unknownMarket.get(x.account.address) ?? 0) + 1)
        continue
      }
      const key = `${x.account.address.toLowerCase()}|${x.marketId}`
      let g = groups.get(key)
      if (!g) groups.set(key, (g = { account: x.account, marketId: x.marketId, fills: [] }))
      g.fills.push({
        tid: x.fill.tid,
        timeMs: x.fill.time,
        side: x.fill.side,
        price: x.price,
        quantity: x.quantity,
        fee: x.fill.fee,
        feeAssetId: x.fill.fee_asset_id,
      })
    }
    const rows: PnlRow[] = []
    for (const g of groups.values()) {
      const m = cat.markets.get(g.marketId)!
      const res = realisedPnl(m, g.fills, { fromMs: q.fromMs, toMs: q.toMs }, (id) => cat.assets.get(id)?.decimals ?? null)
      const notes: string[] = []
      if (res.unknownSideFills > 0)
        notes.push(`${res.unknownSideFills} fill(s) without the account's side (aged out of the service's window) are left out`)
      if (res.openQtyAtoms < 0n)
        notes.push(
          'more sold than bought in the fills read: the difference came from a deposit, a transfer or older fills, and has no cost basis here',
        )
      if (gaps.length > 0) notes.push('some fills could not be read (see gaps): figures may be incomplete')
      rows.push({
        account: g.account.address as PnlRow['account'],
        label: g.account.label,
        marketId: String(g.marketId),
        market: m.symbol,
        baseSymbol: m.baseSymbol,
        quoteSymbol: m.quoteSymbol,
        fills: res.fills,
        fillsInRange: res.fillsInRange,
        closedQty: formatAtoms(res.closedQtyAtoms, m.quantityDecimals),
        realisedGross: fmtValue(res.realisedGross, res.valueScale),
        quoteFees: fmtValue(res.quoteFees, res.valueScale),
        realisedNet: fmtValue(res.realisedNet, res.valueScale),
        otherFees: [...res.otherFees].map(([assetId, atoms]) => {
          const a = cat.assets.get(assetId)!
          return { assetId, symbol: a.symbol, amount: formatAtoms(atoms, a.decimals) }
        }),
        openQty: formatAtoms(res.openQtyAtoms, m.quantityDecimals),
        openCost: fmtValue(res.openCost, res.valueScale),
        unknownSideFills: res.unknownSideFills,
        historyFromMs: res.historyFromMs,
        notes,
      })
    }
    rows.sort((a, b) => a.account.localeCompare(b.account) || Number(a.marketId) - Number(b.marketId))
    const extra = [...unknownMarket].map(([a, n]) => `${a}: ${n} fill(s) in a market that is not listed (left out)`)
    return { method: 'FIFO', methodNote: PNL_METHOD_NOTE, fromMs: q.fromMs ?? null, toMs: q.toMs ?? null, rows, gaps: [...gaps, ...extra] }
  }
}

function fillRow(x: AccountFill, cat: Catalogue, currency: ReportCurrency): FillRow {
  const f = x.fill
  const m = x.marketId === null ? undefined : cat.markets.get(x.marketId)
  const feeAsset = f.fee_asset_id === null ? null : (cat.assets.get(f.fee_asset_id) ?? null)
  let notional: string | null = null
  let value: ReturnType<typeof valueCells> = {
    value_currency: currency.code,
    value: 'unknown',
    value_basis: 'unknown',
    value_note: 'market not listed',
  }
  if (m && x.price !== null && x.quantity !== null) {
    const scale = m.priceDecimals + m.quantityDecimals
    const n = parseDecimal(x.price, m.priceDecimals) * parseDecimal(x.quantity, m.quantityDecimals)
    notional = formatAtoms(n, scale)
    value = valueCells(cat.value(m.quoteAssetId, n, currency, scale), currency)
  }
  const crossed = (f as { crossed?: unknown }).crossed
  return {
    time_utc: isoUtc(f.time),
    time_ms: f.time,
    account: x.account.address,
    account_label: x.account.label,
    market_id: x.marketId,
    market: m?.symbol ?? 'unknown',
    side: f.side === 'B' ? 'buy' : f.side === 'A' ? 'sell' : 'unknown',
    role: crossed === true ? 'taker' : crossed === false ? 'maker' : 'unknown',
    price: x.price,
    quantity: x.quantity,
    base_asset: m?.baseSymbol ?? '',
    notional,
    quote_asset: m?.quoteSymbol ?? '',
    fee: f.fee === null ? '' : feeAsset ? formatAtoms(parseDecimal(f.fee, feeAsset.decimals), feeAsset.decimals) : f.fee,
    fee_asset: f.fee === null ? '' : (feeAsset?.symbol ?? `asset ${String(f.fee_asset_id)}`),
    fee_mode: f.fee_mode ?? '',
    tid: f.tid,
    oid: f.oid ?? '',
    cloid: f.cloid ?? '',
    ...value,
  }
}

/** Reads an atom amount from a record that has `amount_atoms` (raw) or `amount` (display). */
function recordAtoms(rec: Record<string, unknown>, decimals: number): bigint | null {
  const a = rec.amount_atoms
  if (typeof a === 'bigint') return a
  if (typeof a === 'string' && /^[0-9]+$/.test(a)) return parseAtoms(a)
  if (typeof a === 'number' && Number.isSafeInteger(a) && a >= 0) return BigInt(a)
  if (typeof rec.amount === 'string') return parseDecimal(rec.amount, decimals)
  return null
}

function num(x: unknown): number | null {
  if (typeof x === 'number' && Number.isSafeInteger(x)) return x
  if (typeof x === 'bigint' && x <= BigInt(Number.MAX_SAFE_INTEGER)) return Number(x)
  return null
}

function exchangeRow(
  cat: Catalogue,
  currency: ReportCurrency,
  account: ReportAccount,
  kind: 'deposit' | 'withdrawal',
  rec: Record<string, unknown>,
): TransferRow | null {
  const assetId = num(rec.asset_id)
  const time = num(rec.time_ms)
  if (assetId === null || time === null) return null
  const asset = cat.assets.get(assetId)
  if (!asset) return null
  const atoms = recordAtoms(rec, asset.decimals)
  if (atoms === null) return null
  const feeAtoms = kind === 'deposit' ? rec.activation_fee_atoms : rec.withdraw_fee_atoms
  const fee = typeof feeAtoms === 'bigint' ? feeAtoms : typeof feeAtoms === 'string' && /^[0-9]+$/.test(feeAtoms) ? BigInt(feeAtoms) : null
  const ref =
    kind === 'deposit'
      ? `deposit ${String(rec.deposit_id ?? '')}`.trim()
      : `withdraw_nonce ${String(rec.withdraw_nonce ?? '')}${typeof rec.cloid === 'string' ? ` cloid ${rec.cloid}` : ''}`
  return {
    time_utc: isoUtc(time),
    time_ms: time,
    account: account.address,
    account_label: account.label,
    kind,
    counterparty: kind === 'withdrawal' ? String(rec.dst_address ?? '') : '',
    amount: formatAtoms(atoms, asset.decimals),
    asset: asset.symbol,
    fee: fee === null ? '' : formatAtoms(fee, asset.decimals),
    fee_asset: fee === null ? '' : asset.symbol,
    // spec: a withdraw's fee is recorded, not deducted; a first deposit pays the activation fee out of it
    fee_note:
      fee === null ? '' : kind === 'withdrawal' ? 'recorded, not deducted' : fee > 0n ? 'activation fee taken from this deposit' : '',
    status: 'done',
    source: 'exchange',
    reference: ref,
    ...valueCells(cat.value(assetId, atoms, currency), currency),
  }
}

/** Rows of one journaled transfer / withdraw / settle / repay: the sender's, and the receiver's when it is one of ours. */
function journalRows(cat: Catalogue, currency: ReportCurrency, sub: Submission, own: Map<string, ReportAccount>): TransferRow[] {
  let action: Record<string, unknown>
  try {
    action = (JSON.parse(sub.body) as { action: Record<string, unknown> }).action
  } catch {
    return []
  }
  const assetId = Number(action.asset_id)
  const asset = cat.assets.get(assetId)
  if (!asset || typeof action.amount !== 'string' || !/^[0-9]+$/.test(action.amount)) return []
  const atoms = BigInt(action.amount)
  const to = String(action.to ?? action.cash_account ?? action.margin_account ?? action.dst_address ?? '')
  const outcome = outcomeOf(sub).kind
  const base = {
    time_utc: isoUtc(sub.createdAt),
    time_ms: sub.createdAt,
    amount: formatAtoms(atoms, asset.decimals),
    asset: asset.symbol,
    fee: '',
    fee_asset: '',
    fee_note: '',
    status: outcome,
    source: 'journal',
    reference: `cloid ${sub.key}`,
    ...valueCells(cat.value(assetId, atoms, currency), currency),
  }
  const kind = sub.actionType === 'withdraw' ? 'withdrawal' : sub.actionType
  const from = own.get(sub.account.toLowerCase())
  const rows: TransferRow[] = [
    {
      ...base,
      account: sub.account,
      account_label: from?.label ?? '',
      kind: kind === 'withdrawal' ? kind : `${kind}-out`,
      counterparty: to,
    },
  ]
  const receiver = own.get(to.toLowerCase())
  if (sub.actionType !== 'withdraw' && receiver)
    rows.push({ ...base, account: receiver.address, account_label: receiver.label, kind: `${kind}-in`, counterparty: sub.account })
  return rows
}
