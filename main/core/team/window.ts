/**
 * The USD an account moved over the policy's rolling window, for rules with `minWindowUsd`. The
 * source of every figure is the USD value recorded in each proposal when it was made: the write's
 * value at the marks of that moment (writes/pipeline.ts: the guardrail's value, else the moved
 * amount at the session's marks), signed into the chain with the proposal. Figures are never
 * re-valued at today's marks: what the approvers and the policy saw is what counts, and every desk
 * computes the same total from the same verified entries.
 *
 * Window: the 24 hours before this write, same network, exchange and account. Counted: proposals
 * that may execute or did (open, approved, signed, final with an executed or unknown outcome);
 * not counted: rejected, expired (recorded or past expiry unsigned), or settled as not executed.
 * Writes the policy allowed outright count too: the value-moving ones are recorded in the chain as
 * proposals that need no approval when they are signed (proposals.ts, RECORDED_KINDS), so many
 * small allowed writes add up to a window rule like one large one, on every desk alike.
 * Pure, in the chain layer: the chain checks a recorded write's `windowUsd` with it.
 */
import { judgedUsd, type UnknownUsdReading } from './policy'
import type { Proposal } from './proposal-model'

export const WINDOW_MS = 24 * 3600_000

const NOT_EXECUTED = new Set(['notexecuted', 'notsent', 'failed', 'rejected'])

/** Did (or may) this proposal's write move its value? */
function counts(p: Proposal, now: number): boolean {
  if (p.rejection) return false
  if (!p.signed && now >= p.expiresAt) return false // expired unsigned: it can no longer execute
  const last = p.outcomes.at(-1)
  if (!last) return true
  if (last.state === 'expired' || last.state === 'rejected' || last.state === 'failed') return false
  return !(last.finalStatus !== null && NOT_EXECUTED.has(last.finalStatus))
}

/**
 * This write's USD value plus what the account's counted proposals of the last 24 h recorded (USD
 * atoms). Null when one of them is unknown (this write's, or a counted proposal recorded without a
 * mark): the window is then unknown and judged at its worst case, never as if it were zero. The
 * `zero` reading is the older desks' sum (unknown values add nothing), for verifying their entries.
 */
export function rollingWindowUsd(
  state: { proposals: ReadonlyMap<string, Proposal> },
  intent: { kind: string; network: string; exchange: string; account: string; usdAtoms: bigint | null },
  now: number,
  reading: UnknownUsdReading = 'worst-case',
): bigint | null {
  const account = intent.account.toLowerCase()
  const own = judgedUsd(intent.kind, intent.usdAtoms, reading)
  if (own === null) return null
  let total = own
  for (const p of state.proposals.values()) {
    if (p.network !== intent.network || p.exchange !== intent.exchange || p.account !== account) continue
    if (p.at <= now - WINDOW_MS || p.at > now || !counts(p, now)) continue
    const usd = judgedUsd(p.kind, p.usd, reading)
    if (usd === null) return null
    total += usd
  }
  return total
}
