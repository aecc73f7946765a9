/**
 * Shared by the write command groups (settle, repay, orders, earn, journal): opens the network's
 * write session over the shared vault and journal, runs one command, and always closes in order
 * (reconciler stopped, in-flight writes recorded, journal closed).
 */
import { openWriteSession, type OpenedWriteSession } from '../../core/services/session-factory'
import type { Vault } from '../../core/vault'
import type { CliContext } from './context'
import { UsageError, type OptionSpec } from './router'

export const NETWORK_OPTION: Record<string, OptionSpec> = {
  network: { type: 'string', valueName: 'NAME', description: 'network to use (default: sandbox)' },
}

export async function withWriteSession<T>(ctx: CliContext, opts: { unlock: boolean }, run: (s: OpenedWriteSession, vault: Vault) => Promise<T>): Promise<T> {
  const vault = opts.unlock ? await ctx.unlockedVault() : await ctx.openVault()
  const opened = await openWriteSession({ dataDir: ctx.dataDir, networkName: ctx.string('network'), vault })
  try {
    return await run(opened, vault)
  } finally {
    await opened.close()
    vault.lock()
  }
}

export function required(ctx: CliContext, name: string): string {
  const v = ctx.string(name)
  if (v === undefined || v === '') throw new UsageError(`--${name} is required`)
  return v
}
