/** `desk settle …`: move value out of a credit account's long into a balance-mode cash account. */
import { previewLines, previewSettle, settle } from '../../../core/services/settle-repay'
import type { CliContext } from '../context'
import { NETWORK_OPTION, withWriteSession } from '../desk-write'
import type { Command, CommandGroup } from '../router'

const OPTIONS = { ...NETWORK_OPTION, cloid: { type: 'string' as const, valueName: 'CLOID', description: 'client order id (0x + 32 hex; generated when omitted)' } }
const POS = ['CREDIT_ACCOUNT', 'CASH_ACCOUNT', 'ASSET', 'AMOUNT']

function req(ctx: CliContext) {
  const [from, to, asset, amount] = ctx.positionals as [string, string, string, string]
  const cloid = ctx.string('cloid')
  return { from, to, asset, amount, ...(cloid ? { cloid } : {}) }
}

const preview: Command = {
  name: 'preview',
  summary: 'validate a settle and show its effect on both accounts (signs nothing)',
  positionals: POS,
  options: OPTIONS,
  async run(ctx) {
    await withWriteSession(ctx, { unlock: false }, async ({ session }) => {
      const p = await previewSettle(session.ctx, req(ctx))
      ctx.print(previewLines(p), p)
    })
  },
}

const submit: Command = {
  name: 'submit',
  summary: 'settle AMOUNT of ASSET from CREDIT_ACCOUNT to CASH_ACCOUNT (asks to confirm)',
  positionals: POS,
  options: OPTIONS,
  async run(ctx) {
    await withWriteSession(ctx, { unlock: true }, async ({ session }) => {
      const r = await settle(session.ctx, req(ctx))
      ctx.print([...previewLines(r.preview), `journal #${r.outcome.journalId} cloid ${r.outcome.cloid}: ${r.outcome.state}${r.outcome.txHash ? ` tx ${r.outcome.txHash}` : ''}`], r)
    })
  },
}

const group: CommandGroup = { name: 'settle', summary: 'settle a credit account long into a cash account', commands: [preview, submit] }
export default group
