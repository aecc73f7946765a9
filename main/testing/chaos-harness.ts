/**
 * Chaos suite support (tests/chaos): fresh funded accounts on an in-process sandbox, a write
 * side over any journal, a reconcile-until-settled loop, and the judge that compares the
 * journal with the sandbox's ground truth (trading transactions and earn withdrawals) and
 * counts duplicates, losses, wrong statuses, non-final and unresolved entries.
 */
import type { Address, Hex } from 'viem'
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts'
import type { SandboxHandle } from '../../sandbox'
import { sandboxNetwork, type ResolvedNetwork } from '../core/config/networks'
import { InfoClient } from '../core/exchange/info/client'
import { RateScheduler } from '../core/exchange/scheduler'
import type { HttpPoster } from '../core/exchange/trade/http-post'
import { CANCEL_NO_EFFECT } from '../core/exchange/trade/reconcile-evidence'
import { outcomeOf, type Journal, type Submission } from '../core/journal'
import { parseDecimal } from '../core/money/decimal'
import { WriteSide, type WriteSideOptions } from '../core/session/write-side'
import { DevVault } from './dev-vault'

export const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms))

export function sandboxNet(sb: SandboxHandle): ResolvedNetwork {
  return { ...sandboxNetwork(), tradingUrl: sb.tradingUrl, wsUrl: sb.wsUrl, earnUrl: sb.earnUrl } as ResolvedNetwork
}

export function infoFor(sb: SandboxHandle): InfoClient {
  return new InfoClient({ baseUrl: sb.tradingUrl, scheduler: new RateScheduler({ ratePerSec: 2000 }) })
}

export function writeSideFor(
  sb: SandboxHandle,
  journal: Journal,
  vault: DevVault,
  o: Partial<WriteSideOptions> & { post?: HttpPoster } = {},
): WriteSide {
  return new WriteSide({
    network: sandboxNet(sb),
    journal,
    vault,
    info: infoFor(sb),
    tradeScheduler: new RateScheduler({ ratePerSec: 2000 }),
    expiresInMs: 3000,
    expiryGraceMs: 300,
    reconcileMinAgeMs: 0,
    ...o,
  })
}

export interface Wallet {
  address: Address
  key: Hex
}

/** Fresh development keys with sandbox-only funds: every chaos case gets its own accounts. */
export class ChaosAccounts {
  readonly vault = new DevVault()
  private readonly decimals: Map<number, number>
  constructor(private readonly sb: SandboxHandle) {
    this.decimals = new Map(sb.trading.listAssets().map((a) => [a.asset_id, a.balance_decimals]))
  }

  fresh(): Wallet {
    const key = generatePrivateKey()
    const address = privateKeyToAccount(key).address.toLowerCase() as Address
    this.vault.addOwner(key)
    return { address, key }
  }

  private atoms(assetId: number, amount: string): bigint {
    return parseDecimal(amount, this.decimals.get(assetId)!)
  }

  /** A balance-mode account (the first deposit pays the 1.0 USDC activation fee on top). */
  balance(funds: Record<number, string> = { 1: '100000' }): Wallet {
    const w = this.fresh()
    let first = true
    for (const [asset, amount] of Object.entries(funds)) {
      const id = Number(asset)
      this.sb.trading.deposit(w.address, id, this.atoms(id, amount) + (first && id === 1 ? this.atoms(1, '1') : 0n))
      first = false
    }
    return w
  }

  /** A credit account with positions (signed display decimals by asset id). */
  credit(positions: Record<number, string>, creditUsd = '100000'): Wallet {
    const w = this.fresh()
    this.sb.trading.createCreditAccount(w.address, parseDecimal(creditUsd, 8))
    for (const [asset, qty] of Object.entries(positions)) {
      const id = Number(asset)
      const neg = qty.startsWith('-')
      const a = this.atoms(id, neg ? qty.slice(1) : qty)
      this.sb.trading.setCreditPosition(w.address, id, neg ? -a : a)
    }
    return w
  }

  /** A user of the earn pool with a USDC (asset 1, 8 decimals) earn balance. */
  earnUser(amount = '1000'): Wallet {
    const w = this.fresh()
    this.sb.earn.deposit({ user: w.address, assetId: 1, amount: parseDecimal(amount, 8) })
    return w
  }
}

/** Reconciles until no entry is pending (signed/sent/unknown) or the time runs out. */
export async function reconcileUntilSettled(ws: WriteSide, journal: Journal, maxMs = 20_000, everyMs = 150): Promise<void> {
  const end = Date.now() + maxMs
  while (journal.unresolved(ws.network.name).length > 0 && Date.now() < end) {
    await ws.reconcileAll().catch(() => undefined)
    if (journal.unresolved(ws.network.name).length > 0) await sleep(everyMs)
  }
}

export type Truth = 'notexecuted' | 'success' | 'failed'

export interface Verdict {
  key: string
  actionType: string
  /** Times the write ran on the exchange (ground truth). */
  ran: number
  truth: Truth
  /** What the journal says (outcomeOf of its entries for this write). */
  journal: 'success' | 'failed' | 'rejected' | 'notexecuted' | 'unresolved' | 'pending'
  wrong: boolean
  /** A cancel the journal calls "took no effect" (not executed) that ran and failed: both true of it. */
  noEffect?: boolean
  entries: Submission[]
}

export interface ChaosFigures {
  scenario: string
  writes: number
  duplicates: number
  lost: number
  wrongStatus: number
  nonFinal: number
  unresolved: number
  executed: number
  ttfP50Ms: number | null
  ttfMaxMs: number | null
  [extra: string]: unknown
}

/**
 * Judges every write of `journal` against the sandbox's ground truth. A /trade write is one
 * journal entry (matched by signer and envelope nonce, and by cloid against re-execution under
 * another nonce). An earn write is every entry of one (operation id, type): resends of the
 * same bytes journal more than one. `owners` are the accounts the scenario wrote for: every
 * transaction or withdrawal the sandbox holds for them must be in the journal (else: lost).
 */
export function judge(
  sb: SandboxHandle,
  journal: Journal,
  scenario: string,
  owners: readonly string[],
  /** Other journals that wrote for these owners (set-up writes): known, so not lost, and not judged. */
  also: readonly Journal[] = [],
): { figures: ChaosFigures; verdicts: Verdict[]; problems: string[] } {
  const entries = journal.list({ order: 'oldest' })
  const known = [...entries, ...also.flatMap((j) => j.list({ order: 'oldest' }))]
  const txs = sb.trading.groundTruth()
  const earn = sb.earn.groundTruth().withdrawals
  const problems: string[] = []
  const verdicts: Verdict[] = []
  const mine = new Set(owners.map((o) => o.toLowerCase()))

  for (const e of entries.filter((x) => x.channel === 'trade')) {
    const byNonce = txs.filter((t) => t.authority.toLowerCase() === e.signer && t.nonce === e.nonce)
    const cloid = cloidOfBody(e.body)
    const byCloid = cloid ? txs.filter((t) => t.cloid?.toLowerCase() === cloid && t.owner.toLowerCase() === e.account) : []
    const ran = Math.max(byNonce.length, byCloid.length)
    const tx = byNonce[0] ?? byCloid[0]
    const truth: Truth = ran === 0 ? 'notexecuted' : tx!.status === 'success' ? 'success' : 'failed'
    const v = verdict(e.key, e.actionType, ran, truth, [e])
    // A lost cancel whose target stayed open is "took no effect": the exchange keeps no record
    // that tells "never ran" from "ran and failed in its block". That claim is what is judged.
    if (v.journal === 'notexecuted' && truth === 'failed' && journal.history(e.id).at(-1)?.note?.startsWith(CANCEL_NO_EFFECT)) {
      v.wrong = false
      v.noEffect = true
    }
    verdicts.push(v)
  }
  const earnGroups = new Map<string, Submission[]>()
  for (const e of entries.filter((x) => x.channel === 'earn')) {
    const k = `${e.key}|${e.actionType}`
    earnGroups.set(k, [...(earnGroups.get(k) ?? []), e])
  }
  for (const [, group] of earnGroups) {
    const e = group[0]!
    const ws = earn.filter((w) => w.operation_id === e.key)
    let ran = 0
    if (e.actionType === 'createWithdrawal') ran = ws.length
    else if (e.actionType === 'claimWithdrawal') ran = ws.filter((w) => w.claimed_at_unix_ms !== null).length
    else if (e.actionType === 'cancelWithdrawal') ran = ws.filter((w) => w.status === 'cancelled').length
    verdicts.push(verdict(e.key, e.actionType, ran, ran > 0 ? 'success' : 'notexecuted', group))
  }

  // Lost: the exchange ran something for these accounts that the journal does not know ran.
  let lost = 0
  const journaledTrade = new Set(known.filter((e) => e.channel === 'trade').map((e) => `${e.signer}|${e.nonce}`))
  for (const t of txs) {
    if (!mine.has(t.owner.toLowerCase()) && !mine.has(t.authority.toLowerCase())) continue
    if (!journaledTrade.has(`${t.authority.toLowerCase()}|${t.nonce}`)) {
      lost++
      problems.push(`lost: ${t.actionType} by ${t.authority} nonce ${t.nonce} (cloid ${t.cloid}) ran but is not in the journal`)
    }
  }
  const journaledOps = new Set(known.filter((e) => e.actionType === 'createWithdrawal').map((e) => e.key))
  for (const w of earn) {
    if (!mine.has(w.user_address.toLowerCase())) continue
    if (!journaledOps.has(w.operation_id)) {
      lost++
      problems.push(`lost: withdrawal ${w.operation_id} exists but no create is journaled`)
    }
  }
  for (const v of verdicts) {
    if (v.ran > 0 && (v.journal === 'notexecuted' || v.journal === 'rejected') && !v.noEffect) {
      lost++
      problems.push(`lost: ${v.actionType} ${v.key} ran ${v.ran}x but the journal says ${v.journal}`)
    }
    if (v.ran > 1) problems.push(`duplicate: ${v.actionType} ${v.key} ran ${v.ran} times`)
    if (v.wrong)
      problems.push(
        `wrong status: ${v.actionType} ${v.key}: journal ${v.journal}, ground truth ${v.truth} (${v.entries.map((x) => `${x.state}/${x.finalStatus}/${x.code}`).join('; ')})`,
      )
    if (v.journal === 'pending') problems.push(`not final: ${v.actionType} ${v.key} (${v.entries.map((x) => x.state).join(',')})`)
  }
  // Duplicates also as the same cloid executed under two envelopes.
  const cloidRuns = new Map<string, number>()
  for (const t of txs)
    if (t.cloid && OWN_CLOID.has(t.actionType) && (mine.has(t.owner.toLowerCase()) || mine.has(t.authority.toLowerCase())))
      cloidRuns.set(t.cloid, (cloidRuns.get(t.cloid) ?? 0) + 1)
  const dupCloids = [...cloidRuns.values()].filter((n) => n > 1).length
  if (dupCloids > 0) problems.push(`duplicate: ${dupCloids} cloid(s) executed more than once`)

  const ttf = entries
    .filter((e) => e.resolvedAt !== null)
    .map((e) => e.resolvedAt! - e.createdAt)
    .sort((a, b) => a - b)
  const figures: ChaosFigures = {
    scenario,
    writes: verdicts.length,
    duplicates: verdicts.filter((v) => v.ran > 1).length + dupCloids,
    lost,
    wrongStatus: verdicts.filter((v) => v.wrong).length,
    cancelsRanAndFailedNoEffect: verdicts.filter((v) => v.noEffect).length,
    nonFinal: verdicts.filter((v) => v.journal === 'pending').length,
    unresolved: verdicts.filter((v) => v.journal === 'unresolved').length,
    executed: verdicts.filter((v) => v.ran > 0).length,
    ttfP50Ms: ttf.length ? ttf[Math.floor((ttf.length - 1) / 2)]! : null,
    ttfMaxMs: ttf.length ? ttf[ttf.length - 1]! : null,
  }
  return { figures, verdicts, problems }
}

function verdict(key: string, actionType: string, ran: number, truth: Truth, group: Submission[]): Verdict {
  const kinds = group.map((e) => outcomeOf(e).kind)
  // A write is settled by its strongest piece of evidence: any entry that saw it execute.
  const j: Verdict['journal'] = kinds.includes('success')
    ? 'success'
    : kinds.includes('failed')
      ? 'failed'
      : kinds.includes('pending')
        ? 'pending'
        : kinds.includes('unresolved')
          ? 'unresolved'
          : kinds.includes('rejected')
            ? 'rejected'
            : 'notexecuted'
  let wrong = false
  if (j === 'success') wrong = truth !== 'success'
  else if (j === 'failed') wrong = truth !== 'failed'
  else if (j === 'rejected' || j === 'notexecuted') wrong = truth !== 'notexecuted'
  return { key, actionType, ran, truth, journal: j, wrong, entries: group }
}

/** Action types whose cloid names the write itself (a cancel's cloid names its target order). */
const OWN_CLOID = new Set(['order', 'transfer', 'activateFor', 'withdraw', 'settle', 'repay'])

function cloidOfBody(body: string): string | null {
  try {
    const a = (JSON.parse(body) as { action?: { type: string; cloid?: string; items?: { type: string; cloid?: string }[] } }).action
    if (!a) return null
    const c = OWN_CLOID.has(a.type) ? a.cloid : a.type === 'batch' ? a.items?.find((i) => i.type === 'order' && i.cloid)?.cloid : undefined
    return c ? c.toLowerCase() : null
  } catch {
    return null
  }
}

/** One JSON line per scenario, for the run log. */
export function printFigures(f: ChaosFigures): void {
  console.log(JSON.stringify({ chaos: f.scenario, ...f }))
}
