/**
 * Seeded scenario: a description (JSON-compatible, display decimals) and its application to a
 * fresh sandbox. Owners, agents and bots are indices into the well-known dev keys
 * (`dev-keys.ts`). Agents and resting orders go through real signed `/trade` actions.
 */
import { readFile } from 'node:fs/promises'
import * as v from 'valibot'
import type { Address } from 'viem'
import { parseDecimal, parseSignedDecimal } from '../../main/core/money/decimal'
import type { TradeAction } from '../../main/core/wire/actions'
import type { TradingService } from '../trading/types'
import type { EarnPool } from '../earn/earn-pool'
import { devAgent, devBot, devOwner } from './dev-keys'
import { accepted, actionSender } from './signed-actions'
import { createMarketMaker, type MarketMaker } from './market-maker'

const dec = v.pipe(v.string(), v.regex(/^(0|[1-9][0-9]*)(\.[0-9]+)?$/))
const signedDec = v.pipe(v.string(), v.regex(/^-?(0|[1-9][0-9]*)(\.[0-9]+)?$/))
const idx = v.pipe(v.number(), v.integer(), v.minValue(0))

export const ScenarioSchema = v.strictObject({
  balanceAccounts: v.array(v.strictObject({ owner: idx, deposits: v.array(v.strictObject({ asset_id: idx, amount: dec })) })),
  creditAccounts: v.array(
    v.strictObject({
      owner: idx,
      credit_usd: dec,
      positions: v.array(v.strictObject({ asset_id: idx, qty: signedDec })),
      whitelisted_market_ids: v.optional(v.array(v.string())),
    }),
  ),
  agents: v.array(v.strictObject({ owner: idx, slot: v.pipe(idx, v.maxValue(3)), agent: idx })),
  orders: v.array(
    v.strictObject({
      owner: idx,
      market_id: v.string(),
      side: v.picklist(['bid', 'ask']),
      price: dec,
      quantity: dec,
      cloid: v.optional(v.string()),
    }),
  ),
  earn: v.array(
    v.strictObject({
      owner: idx,
      asset_id: idx,
      deposit: dec,
      direct_transfer: v.optional(dec),
      rejected_deposit: v.optional(dec),
      withdrawal: v.optional(
        v.strictObject({ type: v.picklist(['scheduled', 'instant']), amount: dec, claimable: v.optional(v.boolean()) }),
      ),
    }),
  ),
  marketMaker: v.optional(
    v.strictObject({
      intervalMs: v.pipe(idx, v.minValue(50)),
      funds: v.array(v.strictObject({ asset_id: idx, amount: dec })),
      markets: v.array(v.strictObject({ market_id: v.string(), mid: dec, step: dec, size: dec })),
    }),
  ),
})
export type ScenarioSpec = v.InferOutput<typeof ScenarioSchema>

/** The default scenario shown to a new user. */
export const DEFAULT_SCENARIO: ScenarioSpec = {
  balanceAccounts: [
    {
      owner: 0,
      deposits: [
        { asset_id: 1, amount: '250000' },
        { asset_id: 3, amount: '2.5' },
        { asset_id: 4, amount: '40' },
      ],
    },
    {
      owner: 1,
      deposits: [
        { asset_id: 1, amount: '80000' },
        { asset_id: 2, amount: '30000' },
        { asset_id: 4, amount: '12' },
      ],
    },
    {
      owner: 2,
      deposits: [
        { asset_id: 2, amount: '15000' },
        { asset_id: 3, amount: '0.4' },
      ],
    },
  ],
  creditAccounts: [
    // a long and a short
    {
      owner: 3,
      credit_usd: '50000',
      positions: [
        { asset_id: 3, qty: '0.3' },
        { asset_id: 1, qty: '-12000' },
      ],
    },
    // near its credit limit
    { owner: 4, credit_usd: '10000', positions: [{ asset_id: 4, qty: '-2.9' }] },
  ],
  agents: [
    { owner: 0, slot: 0, agent: 0 },
    { owner: 0, slot: 2, agent: 1 },
    { owner: 1, slot: 1, agent: 2 },
  ],
  orders: [
    { owner: 0, market_id: '1', side: 'bid', price: '61000', quantity: '0.05', cloid: '0x000000000000000000000000005eed01' },
    { owner: 0, market_id: '2', side: 'ask', price: '3450.5', quantity: '1.5', cloid: '0x000000000000000000000000005eed02' },
    { owner: 1, market_id: '2', side: 'bid', price: '2990', quantity: '2' },
  ],
  earn: [
    { owner: 0, asset_id: 1, deposit: '50000', withdrawal: { type: 'scheduled', amount: '1000' } },
    { owner: 1, asset_id: 1, deposit: '20000', withdrawal: { type: 'scheduled', amount: '500', claimable: true } },
    { owner: 1, asset_id: 2, deposit: '5000', direct_transfer: '750' },
    { owner: 2, asset_id: 1, deposit: '3000', rejected_deposit: '100' },
  ],
  marketMaker: {
    intervalMs: 2000,
    funds: [
      { asset_id: 1, amount: '20000000' },
      { asset_id: 3, amount: '200' },
      { asset_id: 4, amount: '4000' },
    ],
    markets: [
      { market_id: '1', mid: '65000', step: '5', size: '0.02' },
      { market_id: '2', mid: '3200', step: '0.5', size: '0.4' },
    ],
  },
}

export async function loadScenarioFile(path: string): Promise<ScenarioSpec> {
  let raw: unknown
  try {
    raw = JSON.parse(await readFile(path, 'utf8'))
  } catch (e) {
    throw new Error(`scenario file ${path} is not readable JSON: ${e instanceof Error ? e.message : String(e)}`, { cause: e })
  }
  const r = v.safeParse(ScenarioSchema, raw)
  if (!r.success) {
    const i = r.issues[0]
    throw new Error(`scenario file ${path}: ${v.getDotPath(i) ?? '(root)'}: ${i.message}`)
  }
  return r.output
}

export interface AppliedScenario {
  bot: MarketMaker | null
  /** operation ids of the seeded earn withdrawals */
  withdrawals: string[]
}

/** Applies a scenario to a fresh sandbox. Throws (with the step) when a seeded action is refused. */
export async function applyScenario(
  trading: TradingService,
  earn: EarnPool,
  spec: ScenarioSpec,
  opts: { now?: () => number; startBot?: boolean; earn?: boolean } = {},
): Promise<AppliedScenario> {
  const now = opts.now ?? Date.now
  const decimals = new Map(trading.listAssets().map((a) => [a.asset_id, a.balance_decimals]))
  const dOf = (assetId: number) => {
    const d = decimals.get(assetId)
    if (d === undefined) throw new Error(`scenario: unknown asset ${assetId}`)
    return d
  }
  const activationFee = 100_000_000n // the first deposit pays 1.0 of asset 1 or 2

  for (const acct of spec.balanceAccounts) {
    const who = devOwner(acct.owner).address
    acct.deposits.forEach((d, i) => {
      const extra = i === 0 ? activationFee : 0n
      trading.deposit(who, d.asset_id, parseDecimal(d.amount, dOf(d.asset_id)) + extra)
    })
  }
  for (const c of spec.creditAccounts) {
    const who = devOwner(c.owner).address
    trading.createCreditAccount(
      who,
      parseDecimal(c.credit_usd, 8),
      c.whitelisted_market_ids ? { whitelistedMarketIds: c.whitelisted_market_ids } : undefined,
    )
    for (const p of c.positions) trading.setCreditPosition(who, p.asset_id, parseSignedDecimal(p.qty, dOf(p.asset_id)))
  }
  const mm = spec.marketMaker
  if (mm) {
    for (const bot of [devBot(0), devBot(1)]) {
      mm.funds.forEach((f, i) =>
        trading.deposit(bot.address, f.asset_id, parseDecimal(f.amount, dOf(f.asset_id)) + (i === 0 ? activationFee : 0n)),
      )
    }
  }

  // Signed actions (agents, resting orders) need blocks: they are sent concurrently per owner.
  // Seeding is not gateway traffic: each action gets its own internal peer id so the per-IP
  // /trade budget (1/s by default) does not stretch start-up; nonces stay per signer.
  const senders = new Map<number, ReturnType<typeof actionSender>>()
  let seq = 0
  const sender = (owner: number) => {
    let s = senders.get(owner)
    if (!s) senders.set(owner, (s = actionSender(trading, devOwner(owner).privateKey, () => `internal:seed:${seq++}`, now)))
    return s
  }
  const expect = async (what: string, p: Promise<import('../trading/types').HttpResult>) => {
    const res = await p
    if (!accepted(res)) throw new Error(`scenario: ${what} was refused: ${JSON.stringify(res.body)}`)
    const leaf = (res.body as { response?: { data?: unknown; status?: unknown } }).response
    const err = JSON.stringify(leaf ?? {}).match(/"error":"([a-z]+)"/)
    if (err) throw new Error(`scenario: ${what} failed with ${err[1]}`)
  }
  for (const a of spec.agents) {
    await expect(
      `approveAgent owner ${a.owner} slot ${a.slot}`,
      sender(a.owner).send({ type: 'approveAgent', slot_id: a.slot, agent: devAgent(a.agent).address } as TradeAction),
    )
  }
  for (const o of spec.orders) {
    const action: Record<string, unknown> = {
      type: 'order',
      market_id: o.market_id,
      side: o.side,
      order_type: 'limit',
      tif: 'gtc',
      price: o.price,
      quantity: o.quantity,
    }
    if (o.cloid) action.cloid = o.cloid
    await expect(`order of owner ${o.owner} on market ${o.market_id}`, sender(o.owner).send(action as TradeAction))
  }

  const withdrawals: string[] = []
  for (const e of opts.earn === false ? [] : spec.earn) {
    const who = devOwner(e.owner).address as Address
    earn.deposit({ user: who, assetId: e.asset_id, amount: parseDecimal(e.deposit, 8) })
    if (e.direct_transfer)
      earn.deposit({ user: who, assetId: e.asset_id, amount: parseDecimal(e.direct_transfer, 8), type: 'direct_transfer' })
    if (e.rejected_deposit) earn.deposit({ user: who, assetId: e.asset_id, amount: parseDecimal(e.rejected_deposit, 8), reject: true })
    if (e.withdrawal) {
      const rec = earn.createWithdrawal({
        user: who,
        userNonce: earn.nextNonce(who),
        type: e.withdrawal.type,
        assetId: e.asset_id,
        gross: parseDecimal(e.withdrawal.amount, 8),
        deadline: now() + 60_000,
      })
      if (e.withdrawal.claimable) earn.makeClaimable(rec.operation_id)
      withdrawals.push(rec.operation_id)
    }
  }

  let bot: MarketMaker | null = null
  if (mm && opts.startBot !== false) {
    bot = createMarketMaker(trading, { maker: devBot(0), taker: devBot(1), markets: mm.markets, intervalMs: mm.intervalMs, now })
    await bot.cycle()
  }
  return { bot, withdrawals }
}
