/**
 * The key a proposal is found by. A write's cloid names it, except for an earn claim or cancel: its
 * cloid is the operation id its withdrawal request was created under, so the request, its claim and
 * its cancel are three writes under one cloid, each with its own proposal.
 */
const KEYED_BY_KIND: ReadonlySet<string> = new Set(['earn_claim', 'earn_cancel'])

export function proposalKey(kind: string, cloid: string): string {
  return KEYED_BY_KIND.has(kind) ? `${kind}|${cloid}` : cloid
}
