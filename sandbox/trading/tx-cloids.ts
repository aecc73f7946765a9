/** The client order ids a transaction names: matched by injected faults at admission, kept in the execution record. */
import type { BatchItem } from '../../main/core/wire/actions'
import type { ParsedEnvelope } from './envelope'

/** Every client order id the transaction names, lowercase. */
export function cloidsOf(p: ParsedEnvelope): string[] {
  const a = p.action
  const out: string[] = []
  const fromItem = (it: BatchItem) => {
    if (it.type === 'order' && it.cloid) out.push(it.cloid)
    if (it.type === 'modify' && it.replacement.cloid) out.push(it.replacement.cloid)
  }
  if (a.type === 'batch') a.items.forEach(fromItem)
  else if (a.type === 'order' || a.type === 'modify' || a.type === 'cancel' || a.type === 'cancelAll') fromItem(a)
  else if ('cloid' in a) out.push(a.cloid)
  return out.map((c) => c.toLowerCase())
}
