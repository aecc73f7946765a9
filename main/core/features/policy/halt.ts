import type { Address } from 'viem'
import type { HaltResult } from '../../../contract/types'
import { DeskError } from '../../errors/desk-error'
import type { Journal } from '../../journal'
import type { PolicyBook } from '../../policy'
import { unlockedWriteSide, type SessionSource, type WriteAccess } from '../../session'
import type { WritePipeline } from '../../writes'
import { emergencyCancelAll } from '../orders'

export interface HaltDeps extends WriteAccess {
  sessions: SessionSource
  journal: Journal
  policy: PolicyBook
  /** The halt's cancels are writes like any other: they walk the write pipeline (open while halted). */
  pipeline: WritePipeline
  /** Every account in the vault (with its name and whether it has an owner key). */
  accounts(): { address: string; label: string; watchOnly: boolean }[]
}

const errData = (e: unknown) =>
  e instanceof DeskError
    ? { code: e.code, message: e.message }
    : { code: 'Internal', message: 'an internal error occurred; see the main-process log' }

/**
 * The halt: writes are refused from this instant (persisted), then every open order of every
 * account is cancelled (emergency cancel-all per account) and read back. Each account reports
 * whether zero open orders were verified, or what remains and why.
 */
export async function haltAll(d: HaltDeps): Promise<HaltResult> {
  const session = await d.sessions.current()
  const engine = d.policy.for(session.network)
  const halted = engine.halt()
  const accounts = d.accounts()
  let ctx: Awaited<ReturnType<typeof unlockedWriteSide>>['ctx'] | null = null
  let ctxError: { code: string; message: string } | null = null
  try {
    ctx = (await unlockedWriteSide(d)).ctx
  } catch (e) {
    ctxError = errData(e)
  }
  // Every account at once: their reads overlap, their cancels queue in the /trade budget in
  // click order, so the halt takes about one budget slot per account, not a round of reads each.
  const haltOne = async (a: { address: string; label: string }): Promise<HaltResult['accounts'][number]> => {
    const base = { account: a.address as Address, label: a.label }
    if (!ctx) return { ...base, verifiedZero: false, cancelledMarkets: [], remaining: [], error: ctxError }
    try {
      const r = await emergencyCancelAll(ctx, d.pipeline.run, { account: a.address })
      const failure = r.failures[0]
      const zero = r.remaining.length === 0
      return {
        ...base,
        verifiedZero: zero,
        cancelledMarkets: r.writes.flatMap((w) => w.markets),
        remaining: r.remaining,
        error: failure
          ? { code: failure.code, message: `${failure.message} (markets ${r.failures.flatMap((f) => f.markets).join(', ')})` }
          : zero
            ? null
            : { code: 'OrdersRemain', message: `${r.remaining.length} open order(s) remain after the cancels` },
      }
    } catch (e) {
      // e.g. a watch-only account with open orders: nothing here can sign its cancel
      let remaining: { market: number | null; oid: string }[] = []
      try {
        remaining = (await ctx.reads.openOrders(a.address, -1)).orders.map((o) => ({ market: o.marketId, oid: o.oid }))
      } catch {
        // the read-back failed too: report the first error only
      }
      return { ...base, verifiedZero: false, cancelledMarkets: [], remaining, error: errData(e) }
    }
  }
  const out = await Promise.all(accounts.map(haltOne))
  d.journal.recordPolicyEvent(
    engine.network,
    'halt.result',
    `halt: ${out.filter((x) => x.verifiedZero).length}/${out.length} accounts verified with zero open orders`,
    {
      accounts: out.map((x) => ({
        account: x.account,
        verifiedZero: x.verifiedZero,
        remaining: x.remaining.length,
        error: x.error?.code ?? null,
      })),
    },
  )
  return { network: engine.network, halted, accounts: out }
}
