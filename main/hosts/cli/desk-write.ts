/**
 * Shared by the write command groups (settle, repay, orders, earn, agents): the network option,
 * the vault passphrase when the core's vault is locked, and the preview/submit pair of a
 * settle-like write. Every command is a client of the contract (`cli.*` channels).
 */
import type { SubmissionView, WriteOutcome } from '../../contract/types'
import type { CliContext } from './context'
import { addressArg } from './support/address'
import { assetArg } from './support/assets'
import { accountNamer } from './support/display'
import { transferPreviewData, transferPreviewLines, type TransferPreview } from './support/transfer-preview'
import { UsageError, type Command, type CommandGroup, type OptionSpec } from './router'

export const NETWORK_OPTION: Record<string, OptionSpec> = {
  network: { type: 'string', valueName: 'NAME', description: 'network to use (default: the selected one, as in the app)' },
}

export function required(ctx: CliContext, name: string): string {
  const v = ctx.string(name)
  if (v === undefined || v === '') throw new UsageError(`--${name} is required`)
  return v
}

export function cloidArg(ctx: CliContext): { cloid?: string } {
  const cloid = ctx.string('cloid')
  return cloid ? { cloid } : {}
}

/** A write's journal outcome as the desk prints it. */
export interface OutcomeData {
  journalId: number
  cloid: string
  state: string
  txHash: string | null
  finalStatus: string | null
  code: string | null
  /** the team proposal this write became (state `proposed`: nothing signed, no journal entry) or executed */
  proposalId?: string
}

/** A write's outcome as the desk has always printed it, from the app's outcome view. */
export function outcomeData(o: WriteOutcome): OutcomeData {
  return { ...submissionOutcome(o.submission), ...(o.proposalId ? { proposalId: o.proposalId } : {}) }
}

/** One line for a write's outcome: its journal entry, or (proposed) the proposal it waits in. */
export function outcomeText(o: OutcomeData): string {
  if (o.state === 'proposed')
    return (
      `proposed: waiting for approvals as team proposal ` +
      `${o.proposalId ?? '(unknown)'}; nothing was signed or sent (desk team show ` +
      `${o.proposalId ?? 'ID'})`
    )
  return (
    `journal #${o.journalId} cloid ${o.cloid}: ${o.state}` +
    `${o.finalStatus ? ` (${o.finalStatus})` : ''}${o.code ? ` code ${o.code}` : ''}` +
    `${o.txHash ? ` tx ${o.txHash}` : ''}` +
    `${o.proposalId ? ` (team proposal ${o.proposalId})` : ''}`
  )
}

export function submissionOutcome(s: SubmissionView): OutcomeData {
  return { journalId: Number(s.id), cloid: s.cloid, state: s.state, txHash: s.txHash, finalStatus: s.finalStatus, code: s.code }
}

/**
 * The outcome of a write an app channel answers with its resulting state (agent slots, earn
 * withdrawals): the account's newest journal entry since `sinceMs` of that action type, or
 * whose key (cloid, operation id) matches, read through `journal.query`.
 */
export async function journaledOutcome(
  ctx: CliContext,
  account: string,
  match: { actionType: string } | { q: string },
  sinceMs: number,
): Promise<OutcomeData | null> {
  const [s] = await ctx.call('journal.query', { account: account as SubmissionView['account'], ...match, sinceMs, limit: 1 })
  return s ? submissionOutcome(s) : null
}

/**
 * The `preview` and `submit` commands of a settle-like write (settle, repay): FROM TO ASSET AMOUNT,
 * previewed without signing, or submitted through the confirmation gate. Both call the app's
 * channels (`settle.preview` / `settle.submit`, …) after the desk's call context: the named
 * network is the selected one, and the vault is unlocked.
 */
export function previewSubmitGroup(spec: {
  name: 'settle' | 'repay'
  summary: string
  positionals: [string, string, string, string]
  submitSummary: string
}): CommandGroup {
  const options: Record<string, OptionSpec> = {
    ...NETWORK_OPTION,
    cloid: { type: 'string', valueName: 'CLOID', description: 'client order id (0x + 32 hex; generated when omitted)' },
  }
  /** The app's arguments: settle names the credit account first, repay the paying (cash) account. */
  const req = async (ctx: CliContext) => {
    const [from, to, given, amount] = ctx.positionals as [string, string, string, string]
    const asset = await assetArg(ctx, given)
    const accounts =
      spec.name === 'settle'
        ? { creditAccount: addressArg(from), cashAccount: addressArg(to) }
        : { cashAccount: addressArg(from), creditAccount: addressArg(to) }
    return { asset, args: { ...accounts, assetId: asset.assetId, amount: amount.trim(), ...cloidArg(ctx) } }
  }
  const previewOf = async (ctx: CliContext, r: Awaited<ReturnType<typeof req>>): Promise<TransferPreview> =>
    transferPreviewData(spec.name, await ctx.call(`${spec.name}.preview`, r.args), r.asset)
  const preview: Command = {
    name: 'preview',
    summary: `validate a ${spec.name} and show its effect on both accounts (signs nothing)`,
    positionals: spec.positionals,
    options,
    async run(ctx) {
      await ctx.unlocked()
      const names = accountNamer(ctx)
      const p = await previewOf(ctx, await req(ctx))
      ctx.print(transferPreviewLines(p, await names), p)
    },
  }
  const submit: Command = {
    name: 'submit',
    summary: spec.submitSummary,
    positionals: spec.positionals,
    options,
    async run(ctx) {
      await ctx.unlocked()
      const r = await req(ctx)
      const p = await previewOf(ctx, r)
      const outcome = outcomeData(await ctx.call(`${spec.name}.submit`, r.args))
      ctx.print([...transferPreviewLines(p, await accountNamer(ctx)), outcomeText(outcome)], { preview: p, outcome })
    },
  }
  return { name: spec.name, summary: spec.summary, commands: [preview, submit] }
}
