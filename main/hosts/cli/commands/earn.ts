/** `desk earn …`: earn pool balances, withdrawals queue, create / claim / cancel. */
import { DeskError } from '../../../core/errors/desk-error'
import type { CreateWithdrawalPreview, EarnOverview } from '../../../core/features/earn'
import { NETWORK_OPTION, networkArg, writeArgs } from '../desk-write'
import type { Command, CommandGroup } from '../router'

/** What an earn write prints: the operation, its status and its journal entry. */
interface EarnWrite {
  operationId: string
  status: string
  journalId: number
}

const status: Command = {
  name: 'status',
  summary: 'balances, lifetime figures, withdrawals queue, paused state and items needing attention',
  positionals: ['ACCOUNT'],
  options: NETWORK_OPTION,
  async run(ctx) {
    const o = (await ctx.call('cli.earn.status', { ...networkArg(ctx), user: ctx.positionals[0]! })) as EarnOverview
    const lines = [
      `${o.user}${o.paused ? '  WITHDRAWALS PAUSED (create and claim blocked)' : ''}`,
      ...o.assets.map((a) => `  ${a.symbol.padEnd(6)} earn ${a.earnBalance}  queue ${a.inQueue}  locked ${a.withdrawLocked}  deposited ${a.lifetimeDeposit}  yield ${a.lifetimeYield}  withdrawn ${a.lifetimeWithdraw}`),
      'withdrawals:',
      ...o.withdrawals.map(
        (w) =>
          `  ${w.operationId}  ${w.type} ${w.gross} ${w.symbol} (fee ${w.fee})  ${w.status}${w.claimable ? '  CLAIMABLE' : w.claimableInMs ? `  claimable in ${Math.ceil(w.claimableInMs / 1000)} s` : ''}${w.needsAttention ? '  NEEDS ATTENTION' : ''}${w.failure ? `  ${w.failure}` : ''}`,
      ),
    ]
    ctx.print(lines, o)
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
      const p = (await ctx.call('cli.earn.preview', { ...networkArg(ctx), user, asset, amount, type })) as CreateWithdrawalPreview
      ctx.print(`${p.type} ${p.gross} ${p.symbol}: fee ${p.fee} (${p.feeBps} bps), you receive ${p.net}`, p)
      return
    }
    const r = (await ctx.call('cli.earn.create', { ...(await writeArgs(ctx)), user, asset, amount, type })) as EarnWrite & { preview: CreateWithdrawalPreview }
    ctx.print(`${r.operationId}: ${r.status} (journal #${r.journalId}); fee ${r.preview.fee} ${r.preview.symbol}, you receive ${r.preview.net}`, r)
  },
}

const claim: Command = {
  name: 'claim',
  summary: 'claim a scheduled withdrawal (the first claim is resent byte-identical, never re-signed)',
  positionals: ['ACCOUNT', 'OPERATION_ID'],
  options: NETWORK_OPTION,
  async run(ctx) {
    const [user, operationId] = ctx.positionals as [string, string]
    const r = (await ctx.call('cli.earn.claim', { ...(await writeArgs(ctx)), user, operationId })) as EarnWrite
    ctx.print(`${r.operationId}: ${r.status} (journal #${r.journalId})`, r)
  },
}

const cancel: Command = {
  name: 'cancel',
  summary: 'cancel a scheduled withdrawal before it becomes claimable',
  positionals: ['ACCOUNT', 'OPERATION_ID'],
  options: NETWORK_OPTION,
  async run(ctx) {
    const [user, operationId] = ctx.positionals as [string, string]
    const r = (await ctx.call('cli.earn.cancel', { ...(await writeArgs(ctx)), user, operationId })) as EarnWrite
    ctx.print(`${r.operationId}: ${r.status} (journal #${r.journalId})`, r)
  },
}

const group: CommandGroup = { name: 'earn', summary: 'earn pool: balances, withdrawals queue, create, claim, cancel', commands: [status, create, claim, cancel] }
export default group
