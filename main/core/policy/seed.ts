import type { AddressEntry, PendingChange, PolicyDoc } from './policy-file'
import { isTightening, ruleSpec, valueWithSource } from './rules'

/** A policy the desk already keeps, and whether its defaults are the sandbox's. */
export interface KnownPolicy {
  doc: PolicyDoc
  sandbox: boolean
}

const stricter = (name: string, a: string | null, b: string | null): string | null => (isTightening(name, a, b) ? b : a)

function ruleNames(known: readonly KnownPolicy[]): string[] {
  const names = new Set<string>(['price-band', 'cooling-off'])
  for (const k of known) for (const n of Object.keys(k.doc.rules)) names.add(n)
  // 'price-band' sorts before 'price-band:<market>', so a market's band is compared with the global one already chosen.
  return [...names].filter(isKnownRule).sort()
}

function isKnownRule(name: string): boolean {
  try {
    ruleSpec(name)
    return true
  } catch {
    return false
  }
}

/**
 * The strictest value of every rule among `known` (each read with its own defaults), written
 * only where it is stricter than what a policy with `sandbox` defaults would have anyway.
 * What a never-seen exchange starts with, and how two per-name files of one exchange merge.
 */
export function strictestRules(known: readonly KnownPolicy[], sandbox: boolean): Record<string, string | null> {
  const rules: Record<string, string | null> = {}
  for (const name of ruleNames(known)) {
    let strict: string | null | undefined
    for (const k of known) {
      const v = valueWithSource(k.doc.rules, name, k.sandbox).value
      strict = strict === undefined ? v : stricter(name, strict, v)
    }
    if (strict === undefined) continue
    const mine = valueWithSource(rules, name, sandbox).value
    if (strict !== mine && isTightening(name, mine, strict)) rules[name] = strict
  }
  return rules
}

/** Two pending loosenings of one rule: the stricter value, at the later time. */
function mergePending(a: PendingChange[], b: PendingChange[]): PendingChange[] {
  const out = new Map<string, PendingChange>()
  for (const p of [...a, ...b]) {
    const q = out.get(p.name)
    out.set(
      p.name,
      q
        ? {
            name: p.name,
            value: stricter(p.name, q.value, p.value),
            requestedAt: Math.max(q.requestedAt, p.requestedAt),
            effectiveAt: Math.max(q.effectiveAt, p.effectiveAt),
          }
        : p,
    )
  }
  return [...out.values()]
}

/** Address books of one exchange kept under two names: every entry kept; a label clash keeps both, the second one renamed. */
function mergeAddresses(a: AddressEntry[], b: AddressEntry[], from: string): AddressEntry[] {
  const out = [...a]
  for (const e of b) {
    const same = out.find((x) => x.label.toLowerCase() === e.label.toLowerCase())
    if (!same) out.push(e)
    else if (same.address.toLowerCase() === e.address.toLowerCase() && same.chainId === e.chainId)
      same.usableAt = Math.max(same.usableAt, e.usableAt)
    else out.push({ ...e, label: `${e.label} (${from})`.slice(0, 64) })
  }
  return out
}

/**
 * Merges a per-name policy file into the exchange's policy: the stricter value of each rule,
 * both sets of pending loosenings (stricter value, later time) and both address books.
 */
export function mergePolicies(into: KnownPolicy, from: KnownPolicy, fromName: string): PolicyDoc {
  return {
    ...into.doc,
    rules: strictestRules([into, from], into.sandbox),
    pending: mergePending(into.doc.pending, from.doc.pending),
    addresses: mergeAddresses(into.doc.addresses, from.doc.addresses, fromName),
    halted: null,
  }
}
