/**
 * Shared by the write command groups (settle, repay, orders, earn, agents): the network option,
 * the vault passphrase when the core's vault is locked, and the preview/submit pair of a
 * settle-like write. Every command is a client of the contract (`cli.*` channels).
 */
import type { CliSecret } from '../../contract/types'
import type { CliContext } from './context'
import { accountNamer, type AccountNamer } from './support/display'
import { UsageError, type Command, type CommandGroup, type OptionSpec } from './router'

export const NETWORK_OPTION: Record<string, OptionSpec> = {
  network: { type: 'string', valueName: 'NAME', description: 'network to use (default: the selected one, as in the app)' },
}

/** `{ network }` when --network was given. */
export function networkArg(ctx: CliContext): { network?: string } {
  const n = ctx.string('network')
  return n !== undefined ? { network: n } : {}
}

/** What a write sends besides its own fields: the network and, if the core's vault is locked, the passphrase. */
export async function writeArgs(ctx: CliContext): Promise<{ network?: string; unlock?: CliSecret }> {
  return { ...networkArg(ctx), ...(await ctx.unlockRef()) }
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
}

/**
 * The `preview` and `submit` commands of a settle-like write (settle, repay): FROM TO ASSET AMOUNT,
 * previewed without signing, or submitted through the confirmation gate.
 */
export function previewSubmitGroup<P>(spec: {
  name: 'settle' | 'repay'
  summary: string
  positionals: [string, string, string, string]
  submitSummary: string
  lines: (p: P, name: AccountNamer) => string[]
}): CommandGroup {
  const options: Record<string, OptionSpec> = { ...NETWORK_OPTION, cloid: { type: 'string', valueName: 'CLOID', description: 'client order id (0x + 32 hex; generated when omitted)' } }
  const req = (ctx: CliContext) => {
    const [from, to, asset, amount] = ctx.positionals as [string, string, string, string]
    return { from, to, asset, amount, ...cloidArg(ctx) }
  }
  const preview: Command = {
    name: 'preview',
    summary: `validate a ${spec.name} and show its effect on both accounts (signs nothing)`,
    positionals: spec.positionals,
    options,
    async run(ctx) {
      const names = accountNamer(ctx)
      const p = (await ctx.call(`cli.${spec.name}.preview`, { ...networkArg(ctx), ...req(ctx) })) as P
      ctx.print(spec.lines(p, await names), p)
    },
  }
  const submit: Command = {
    name: 'submit',
    summary: spec.submitSummary,
    positionals: spec.positionals,
    options,
    async run(ctx) {
      const r = (await ctx.call(`cli.${spec.name}.submit`, { ...(await writeArgs(ctx)), ...req(ctx) })) as { preview: P; outcome: OutcomeData }
      ctx.print([...spec.lines(r.preview, await accountNamer(ctx)), `journal #${r.outcome.journalId} cloid ${r.outcome.cloid}: ${r.outcome.state}${r.outcome.txHash ? ` tx ${r.outcome.txHash}` : ''}`], r)
    },
  }
  return { name: spec.name, summary: spec.summary, commands: [preview, submit] }
}
