/**
 * The desk's writes: the same services as the app's channels, through the core's one write side
 * (one journal writer, one reconciler, one /trade budget, one nonce sequence per signer).
 */
import type { CliSecret } from '../../../contract/types'
import type { HandlerTable } from '../../ipc/dispatch'
import type { PolicyBook } from '../../policy'
import type { WriteSide } from '../../session'
import type { WritePipeline } from '../../writes'
import { orderWrite } from '../orders'
import { requireVault, sessionFor, unlockedVault, type CliDeps } from './cli-deps'
import { orderTicket } from './requests'

export type CliWriteChannels =
  | 'cli.orders.place'

/**
 * The desk's writes pass the same operator policy as the app's (halt, destinations, limits,
 * price band) before anything is signed: one engine in main for every host.
 */
export function cliWriteHandlers(d: CliDeps & { policy: PolicyBook; pipeline: WritePipeline }): Pick<HandlerTable, CliWriteChannels> {
  /**
   * The write side over an unlocked vault (the app's unlock state when attached). The unlock
   * (scrypt, about a second) runs beside the session and the reads every write starts with (the
   * network's asset list, cached for the action), so the first request is not held behind the
   * KDF; nothing is signed before the unlock has succeeded.
   */
  const writer = async (a: { network?: string | undefined; unlock?: CliSecret | undefined }): Promise<WriteSide> => {
    requireVault(d)
    const side = sessionFor(d, a.network).then((s) => s.write())
    side.then((w) => w.ctx.reads.assets()).catch(() => {})
    const [, w] = await Promise.all([unlockedVault(d, a.unlock), side])
    return w
  }
  return {
    'cli.orders.place': async (a) => {
      await writer(a)
      const t = orderTicket(a)
      const r = await d.pipeline.run(orderWrite(t, { override: a.overrideBand ? { priceBand: true, confirmText: a.overrideBand } : undefined }))
      if (r.state === 'proposed') return { proposed: true, proposalId: r.proposalId, needs: r.needs }
      return { ticket: r.feature, outcome: r.outcome, leaves: r.leaves }
    },
  }
}
