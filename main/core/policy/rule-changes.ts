import type { PolicyDoc } from './policy-file'
import { canonicalValue, isTightening, valueWithSource } from './rules'
import type { Authority, PolicyChanges } from './engine-types'
import { coolingOffText, ruleValueText } from './rule-text'

/**
 * Sets a rule. Tightening applies at once (no passphrase); loosening needs the passphrase and
 * takes effect after the cooling-off in force, shown as a pending change until then.
 *
 * The cooling-off is the exception: changing it needs the passphrase either way. It is the delay
 * on the operator's own later changes, so a longer one is not a tightening anyone may impose:
 * no change made without the passphrase may delay a later change beyond the cooling-off in
 * force before it. A raise (with the passphrase) applies at once; a cut waits out the current one.
 */
export async function setRule(
  ctx: PolicyChanges,
  name: string,
  raw: string | null,
  passphrase?: Authority,
): Promise<{ applied: boolean; effectiveAt: number }> {
  const value = canonicalValue(name, raw)
  const doc = ctx.doc()
  const { value: current, source } = valueWithSource(doc.rules, name, ctx.sandboxIn(doc))
  const t = ctx.now()
  const from = ruleValueText(name, current, source)
  if (isTightening(name, current, value)) {
    if (name === 'cooling-off') await ctx.requirePassphrase(passphrase, 'changing the cooling-off')
    const next: PolicyDoc = { ...doc, rules: { ...doc.rules, [name]: value }, pending: doc.pending.filter((p) => p.name !== name) }
    ctx.save(next)
    ctx.log('policy.set', `${name}: ${from} -> ${ruleValueText(name, value)} (tightened, in force now)`, {
      name,
      from: current,
      fromSource: source,
      to: value,
      tightening: true,
    })
    return { applied: true, effectiveAt: t }
  }
  await ctx.requirePassphrase(passphrase, `loosening ${name}`)
  const coolingOff = ctx.coolingOffIn(doc)
  const effectiveAt = t + coolingOff
  const next: PolicyDoc = {
    ...doc,
    pending: [...doc.pending.filter((p) => p.name !== name), { name, value, requestedAt: t, effectiveAt }],
  }
  ctx.save(next)
  ctx.log(
    'policy.pending',
    `${name}: ${from} -> ${ruleValueText(name, value)} (loosened; in force after the ` +
      `${coolingOffText(coolingOff, ctx.sandboxIn(doc) && !('cooling-off' in doc.rules))} cooling-off)`,
    {
      name,
      from: current,
      fromSource: source,
      to: value,
      tightening: false,
      effectiveAt,
      times: { effectiveAt },
    },
  )
  if (effectiveAt <= t) ctx.doc() // no cooling-off: applies (and is journaled) now
  return { applied: effectiveAt <= t, effectiveAt }
}
