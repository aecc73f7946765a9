/**
 * The fields a team proposal takes from the write itself, the same for a write waiting for
 * approvals (write-decision.ts) and one recorded as allowed (allowed-record.ts). The action is
 * stored as canonical JSON; one that has no canonical form (a float, say) is refused, typed.
 */
import { canonicalJson, type ActionKind, type ProposalBody } from '../../team'
import type { WriteIntent } from '../../writes/decision'
import { refused } from './gate-refusals'

export type WriteFields = Pick<
  ProposalBody,
  'network' | 'exchange' | 'account' | 'signer' | 'kind' | 'action' | 'cloid' | 'title' | 'preview' | 'usd' | 'destination'
>

export function writeFields(intent: WriteIntent, what: 'proposed' | 'recorded'): WriteFields {
  let action: ProposalBody['action']
  try {
    action = JSON.parse(canonicalJson(intent.action))
  } catch (e) {
    throw refused(`this write cannot be ${what}: ${(e as Error).message}`)
  }
  return {
    network: intent.network,
    exchange: intent.exchange,
    account: intent.account.toLowerCase(),
    signer: intent.signer?.toLowerCase() ?? null,
    kind: intent.kind as ActionKind,
    action,
    cloid: intent.cloid,
    title: intent.title,
    preview: [...intent.preview],
    usd: intent.usdAtoms,
    destination: intent.destination?.address.toLowerCase() ?? null,
  }
}
