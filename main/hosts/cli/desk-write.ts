/**
 * Shared by the write command groups (settle, repay, orders, earn, journal): opens the network's
 * write session over the shared vault and journal, runs one command, and always closes in order
 * (reconciler stopped, in-flight writes recorded, journal closed).
 */
import type { ResolvedNetwork } from '../../core/config/networks'
import type { Journal } from '../../core/journal'
import type { WriteSide } from '../../core/session'
import { withCliSession } from './cli-session'
import type { Vault } from '../../core/vault'
import type { CliContext } from './context'
import { UsageError, type Command, type CommandGroup, type OptionSpec } from './router'

export const NETWORK_OPTION: Record<string, OptionSpec> = {
  network: { type: 'string', valueName: 'NAME', description: 'network to use (default: the selected one, as in the app)' },
}

/** The write side of one command: the network, its journal and its submitter/reconciler/earn client. */
export interface OpenedWriteSession {
  network: ResolvedNetwork
  journal: Journal
  session: WriteSide
}

export async function withWriteSession<T>(ctx: CliContext, opts: { unlock: boolean }, run: (s: OpenedWriteSession, vault: Vault) => Promise<T>): Promise<T> {
  const vault = opts.unlock ? await ctx.unlockedVault() : await ctx.openVault()
  try {
    return await withCliSession(ctx, vault, (s, journal) => run({ network: s.network, journal, session: s.write() }, vault))
  } finally {
    vault.lock()
  }
}

export function required(ctx: CliContext, name: string): string {
  const v = ctx.string(name)
  if (v === undefined || v === '') throw new UsageError(`--${name} is required`)
  return v
}

/**
 * The `preview` and `submit` commands of a settle-like write (settle, repay): FROM TO ASSET AMOUNT,
 * previewed without signing, or submitted through the confirmation gate.
 */
export function previewSubmitGroup<P, R extends { preview: P; outcome: { journalId: number; cloid: string; state: string; txHash: string | null } }>(spec: {
  name: string
  summary: string
  positionals: [string, string, string, string]
  submitSummary: string
  preview: (ctx: OpenedWriteSession['session']['ctx'], req: { from: string; to: string; asset: string; amount: string; cloid?: string }) => Promise<P>
  submit: (ctx: OpenedWriteSession['session']['ctx'], req: { from: string; to: string; asset: string; amount: string; cloid?: string }) => Promise<R>
  lines: (p: P) => string[]
}): CommandGroup {
  const options: Record<string, OptionSpec> = { ...NETWORK_OPTION, cloid: { type: 'string', valueName: 'CLOID', description: 'client order id (0x + 32 hex; generated when omitted)' } }
  const req = (ctx: CliContext) => {
    const [from, to, asset, amount] = ctx.positionals as [string, string, string, string]
    const cloid = ctx.string('cloid')
    return { from, to, asset, amount, ...(cloid ? { cloid } : {}) }
  }
  const preview: Command = {
    name: 'preview',
    summary: `validate a ${spec.name} and show its effect on both accounts (signs nothing)`,
    positionals: spec.positionals,
    options,
    async run(ctx) {
      await withWriteSession(ctx, { unlock: false }, async ({ session }) => {
        const p = await spec.preview(session.ctx, req(ctx))
        ctx.print(spec.lines(p), p)
      })
    },
  }
  const submit: Command = {
    name: 'submit',
    summary: spec.submitSummary,
    positionals: spec.positionals,
    options,
    async run(ctx) {
      await withWriteSession(ctx, { unlock: true }, async ({ session }) => {
        const r = await spec.submit(session.ctx, req(ctx))
        ctx.print([...spec.lines(r.preview), `journal #${r.outcome.journalId} cloid ${r.outcome.cloid}: ${r.outcome.state}${r.outcome.txHash ? ` tx ${r.outcome.txHash}` : ''}`], r)
      })
    },
  }
  return { name: spec.name, summary: spec.summary, commands: [preview, submit] }
}
