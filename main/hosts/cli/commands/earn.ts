/** `desk earn …`: earn pool balances, withdrawals queue, create / claim / cancel. */
import { DeskError } from '../../../contract/errors'
import type { EarnOverviewView, EarnWithdrawalView } from '../../../contract/types'
import { addressArg } from '../support/address'
import { journaledOutcome, NETWORK_OPTION } from '../desk-write'
import type { CliContext } from '../context'
import { assetArg } from '../support/assets'
import type { Command, CommandGroup } from '../router'
import { formatCountdown, formatRate } from '../../../contract/format'
import { accountNamer, amount as inUnits, when, type AccountNamer } from '../support/display'

/** What an earn write prints: the operation, its status and its journal entry (from the app's withdrawal view and the journal). */
async function earnWrite(ctx: CliContext, account: string, v: EarnWithdrawalView, sinceMs: number) {
  const o = await journaledOutcome(ctx, account, { q: v.operationId }, sinceMs)
  return { operationId: v.operationId, journalId: o?.journalId ?? null, state: o?.state ?? null, status: v.status }
}

/** The earn status as the desk prints it (its --json shape), from the app's `earn.overview` view. */
export interface EarnOverview {
  user: string
  paused: boolean
  nextUserNonce: string
  assets: {
    symbol: string
    earnBalance: string
    inQueue: string
    withdrawLocked: string
    lifetimeDeposit: string
    lifetimeYield: string
    lifetimeWithdraw: string
    projectedApy: string | null
  }[]
  withdrawals: {
    operationId: string
    type: string
    gross: string
    fee: string
    net: string
    symbol: string
    status: string
    createdAt: number
    claimableAt: number | null
    claimableInMs: number | null
    claimable: boolean
    cancelable: boolean
    needsAttention: boolean
    failure: string | null
  }[]
}

export function earnOverviewData(v: EarnOverviewView, now = Date.now()): EarnOverview {
  return {
    user: v.address,
    paused: v.paused,
    nextUserNonce: v.nextUserNonce,
    assets: v.assets.map((a) => ({
      symbol: a.symbol,
      earnBalance: a.earnBalance,
      inQueue: a.inQueueBalance,
      withdrawLocked: a.withdrawLockedBalance,
      lifetimeDeposit: a.lifetimeDeposit,
      lifetimeYield: a.lifetimeYield,
      lifetimeWithdraw: a.lifetimeWithdraw,
      projectedApy: a.projectedApy,
    })),
    withdrawals: v.withdrawals.map((w) => ({
      operationId: w.operationId,
      type: w.type,
      gross: w.gross,
      fee: w.fee,
      net: w.net,
      symbol: w.symbol,
      status: w.status,
      createdAt: w.createdAt,
      claimableAt: w.claimableAt,
      claimableInMs: w.claimableAt === null ? null : Math.max(0, w.claimableAt - now),
      claimable: w.canClaim,
      cancelable: w.canCancel,
      needsAttention: w.needsAttention,
      failure: w.failureCode,
    })),
  }
}

/** The earn status: amounts in their assets, APY as a percentage, withdrawal times in the operator's zone with their age. */
export function earnLines(o: EarnOverview, name: AccountNamer, now = Date.now()): string[] {
  return [
    `${name(o.user)}${o.paused ? '  WITHDRAWALS PAUSED (create and claim blocked)' : ''}`,
    ...o.assets.map(
      (a) =>
        `  ${a.symbol.padEnd(6)} earn ${inUnits(a.earnBalance, a.symbol)}  queue ` +
        `${inUnits(a.inQueue, a.symbol)}  locked ${inUnits(a.withdrawLocked, a.symbol)}  deposited ` +
        `${inUnits(a.lifetimeDeposit, a.symbol)}  yield ` +
        `${inUnits(a.lifetimeYield, a.symbol)}  withdrawn ` +
        `${inUnits(a.lifetimeWithdraw, a.symbol)}  APY ${formatRate(a.projectedApy)}`,
    ),
    ...(o.withdrawals.length === 0 ? ['withdrawals: none'] : ['withdrawals:']),
    ...o.withdrawals.map(
      (w) =>
        `  ${w.operationId}  ${w.type} ${inUnits(w.gross, w.symbol)} (fee ` +
        `${inUnits(w.fee, w.symbol)})  ${w.status}  created ${when(w.createdAt, now)}` +
        `${w.claimable ? '  CLAIMABLE' : w.claimableAt !== null && w.claimableInMs ? `  claimable ${formatCountdown(w.claimableAt, now)}` : ''}` +
        `${w.needsAttention ? '  NEEDS ATTENTION' : ''}${w.failure ? `  ${w.failure}` : ''}`,
    ),
  ]
}

const status: Command = {
  name: 'status',
  summary: 'balances, lifetime figures, withdrawals queue, paused state and items needing attention',
  positionals: ['ACCOUNT'],
  options: NETWORK_OPTION,
  async run(ctx) {
    const account = addressArg(ctx.positionals[0]!)
    // The app reads the earn pool through the unlocked write side.
    await ctx.unlocked()
    const names = accountNamer(ctx)
    const o = earnOverviewData(await ctx.call('earn.overview', { account }))
    ctx.print(earnLines(o, await names), o)
  },
}

const create: Command = {
  name: 'create',
  summary: 'create a withdrawal (TYPE scheduled or instant); shows the fee and asks to confirm',
  positionals: ['ACCOUNT', 'ASSET', 'AMOUNT', 'TYPE'],
  options: { ...NETWORK_OPTION, preview: { type: 'boolean', description: 'only check and show the fee; sign nothing' } },
  async run(ctx) {
    const [user, asset, amount, type] = ctx.positionals as [string, string, string, string]
    if (type !== 'scheduled' && type !== 'instant') throw new DeskError('Usage', 'TYPE must be scheduled or instant')
    if (ctx.flag('preview')) {
      const { assetId } = await assetArg(ctx, asset)
      const p = await ctx.call('earn.preview', { account: addressArg(user), assetId, amount: amount.trim(), type })
      ctx.print(
        `${p.type} ${inUnits(p.gross, p.symbol)}: fee ${inUnits(p.fee, p.symbol)} (${p.feeBps} bps), you receive ${inUnits(p.net, p.symbol)}`,
        p,
      )
      return
    }
    const account = addressArg(user)
    await ctx.unlocked()
    const { assetId } = await assetArg(ctx, asset)
    const since = Date.now()
    const v = await ctx.call('earn.create', { account, assetId, amount: amount.trim(), type })
    const r = {
      ...(await earnWrite(ctx, account, v, since)),
      preview: { symbol: v.symbol, type: v.type, gross: v.gross, fee: v.fee, net: v.net },
    }
    ctx.print(
      `${r.operationId}: ${r.status} (journal #${r.journalId ?? '?'}); fee ` +
        `${inUnits(r.preview.fee, r.preview.symbol)}, you receive ` +
        `${inUnits(r.preview.net, r.preview.symbol)}`,
      r,
    )
  },
}

const claim: Command = {
  name: 'claim',
  summary: 'claim a scheduled withdrawal (the first claim is resent byte-identical, never re-signed)',
  positionals: ['ACCOUNT', 'OPERATION_ID'],
  options: NETWORK_OPTION,
  async run(ctx) {
    const [user, operationId] = ctx.positionals as [string, string]
    const account = addressArg(user)
    await ctx.unlocked()
    const since = Date.now()
    const r = await earnWrite(ctx, account, await ctx.call('earn.claim', { account, operationId: operationId.trim() }), since)
    ctx.print(`${r.operationId}: ${r.status} (journal #${r.journalId ?? '?'})`, r)
  },
}

const cancel: Command = {
  name: 'cancel',
  summary: 'cancel a scheduled withdrawal before it becomes claimable',
  positionals: ['ACCOUNT', 'OPERATION_ID'],
  options: NETWORK_OPTION,
  async run(ctx) {
    const [user, operationId] = ctx.positionals as [string, string]
    const account = addressArg(user)
    await ctx.unlocked()
    const since = Date.now()
    const r = await earnWrite(ctx, account, await ctx.call('earn.cancel', { account, operationId: operationId.trim() }), since)
    ctx.print(`${r.operationId}: ${r.status} (journal #${r.journalId ?? '?'})`, r)
  },
}

const group: CommandGroup = {
  name: 'earn',
  summary: 'earn pool: balances, withdrawals queue, create, claim, cancel',
  commands: [status, create, claim, cancel],
}
export default group
