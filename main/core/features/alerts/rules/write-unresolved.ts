import { shortAddress } from '../../../../contract/format'
import type { Submission } from '../../../journal'
import { who, type RuleContext } from './context'

/** A write the reconciler could not settle, once per entry (until acknowledged in the journal). */
export function unresolvedAlert(ctx: RuleContext, sub: Submission): void {
  if (ctx.closed() || ctx.d.journal.isClosed) return
  const label = ctx.d.accounts().find((x) => x.address.toLowerCase() === sub.account.toLowerCase())?.label ?? ''
  ctx.fire(sub.network, `unresolved:${sub.id}`, {
    kind: 'write-unresolved',
    level: 'error',
    title: `Write unresolved: ${sub.actionType}`,
    message:
      `${sub.summary} (${who({ address: sub.account, label })}, cloid ${shortAddress(sub.key)}). ` +
      `${sub.advice ?? 'Check the exchange, then acknowledge it in the journal before any new attempt.'}`,
    account: sub.account,
  })
}
