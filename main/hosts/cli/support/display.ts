/**
 * How the desk shows things to the operator, through the shared format module
 * (main/contract/format.ts) so the CLI reads like the app: amounts in asset units with the
 * symbol and thousands separators, USD one way, rates as percentages, times in the operator's
 * zone with their age, accounts by label and short address.
 */
import type { AccountView } from '../../../contract/types'
import { formatAccount, formatAmount, formatWhen, shortAddress } from '../../../contract/format'
import type { CliContext } from '../context'

/** The operator's time zone: TZ when set (scripts, SSH sessions), else the system's. */
export function operatorZone(): string | undefined {
  return process.env.TZ || undefined
}

/** "2026-11-23 23:54:00 UTC (12s ago)": the desk's one format (format.ts formatWhen), in the operator's zone. */
export function when(ms: number | null | undefined, nowMs = Date.now()): string {
  const zone = operatorZone()
  return formatWhen(ms, nowMs, zone ? { timeZone: zone } : {})
}

/** An amount in units with its symbol ("1,234.5 USDC"); a signed decimal keeps its sign. */
export function amount(value: string | null | undefined, symbol: string): string {
  return formatAmount(value, { symbol })
}

export type AccountNamer = (address: string) => string

const cache = new WeakMap<CliContext, Promise<AccountNamer>>()

/**
 * Names accounts as "Label (0x12ab…cdef)". Asks the core for the account list once per
 * invocation, and only for text output (JSON keeps full addresses); an address that is not one
 * of the operator's accounts shows short.
 */
export function accountNamer(ctx: CliContext): Promise<AccountNamer> {
  if (ctx.globals.json) return Promise.resolve(shortAddress)
  let p = cache.get(ctx)
  if (!p) {
    p = ctx.call('accounts.list', undefined).then(
      (list) => namerFor(list),
      () => shortAddress,
    )
    cache.set(ctx, p)
  }
  return p
}

export function namerFor(list: readonly Pick<AccountView, 'address' | 'label'>[]): AccountNamer {
  const byAddress = new Map(list.map((a) => [a.address.toLowerCase(), a]))
  return (address) => {
    const a = byAddress.get(address.toLowerCase())
    return a ? formatAccount(a).text : shortAddress(address)
  }
}
