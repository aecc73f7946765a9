/**
 * Hand-written checks for the four account channels, run on every frame before the schemas
 * in `frames.ts` (valibot costs more than the JSON parse itself at stream rates). Each check
 * accepts only what its schema accepts and converts in place to what the schema outputs
 * (addresses lowercased, integer ids and atoms to bigint). On `false` the caller re-parses
 * and asks the schema, which then names the offending field.
 */

/** The account channels whose frames are checked (here first, then by the schemas of `frames.ts`). */
export type ValidatedChannel = 'userFills' | 'spotState' | 'spotCreditState' | 'openOrders'

type Obj = Record<string, unknown>

const DECIMAL = /^-?(0|[0-9]+)(\.[0-9]+)?$/
const DIGITS = /^(0|[1-9][0-9]*)$/
const SIGNED_DIGITS = /^-?(0|[1-9][0-9]*)$/
const ADDRESS = /^0x[0-9a-fA-F]{40}$/
const CLOID = /^0x[0-9a-fA-F]{32}$/

function isObj(x: unknown): x is Obj {
  return typeof x === 'object' && x !== null && !Array.isArray(x)
}
const isDec = (x: unknown): boolean => typeof x === 'string' && DECIMAL.test(x)
const isNonNegInt = (x: unknown): boolean => typeof x === 'number' && Number.isSafeInteger(x) && x >= 0
const isOptBool = (x: unknown): boolean => x === undefined || typeof x === 'boolean'

/** uint: safe non-negative JSON integer or digit string -> bigint; undefined when invalid. */
function toUint(x: unknown): bigint | undefined {
  if (typeof x === 'number') return Number.isSafeInteger(x) && x >= 0 ? BigInt(x) : undefined
  if (typeof x === 'string') return DIGITS.test(x) ? BigInt(x) : undefined
  return undefined
}
function toSint(x: unknown): bigint | undefined {
  if (typeof x === 'number') return Number.isSafeInteger(x) ? BigInt(x) : undefined
  if (typeof x === 'string') return SIGNED_DIGITS.test(x) ? BigInt(x) : undefined
  return undefined
}
const isNullishCloid = (x: unknown): boolean => x === undefined || x === null || (typeof x === 'string' && CLOID.test(x))

// The handful of addresses a desk streams repeat in every frame: remember the checked ones.
const addressCache = new Map<string, string>()
function checkUser(d: Obj): boolean {
  const u = d.user
  if (typeof u !== 'string') return false
  let lower = addressCache.get(u)
  if (lower === undefined) {
    if (!ADDRESS.test(u)) return false
    lower = u.toLowerCase()
    if (addressCache.size >= 1024) addressCache.clear()
    addressCache.set(u, lower)
  }
  d.user = lower
  return true
}

function fill(f: unknown): boolean {
  if (!isObj(f)) return false
  if (typeof f.coin !== 'string' || !isDec(f.px) || !isDec(f.sz) || (f.side !== 'B' && f.side !== 'A') || !isNonNegInt(f.time)) return false
  if (!isOptBool(f.crossed) || (f.fee !== undefined && !isDec(f.fee))) return false
  const ft = f.feeToken
  if (ft !== undefined && typeof ft !== 'string' && typeof ft !== 'number') return false
  if (!isNullishCloid(f.cloid)) return false
  const tid = toUint(f.tid)
  if (tid === undefined) return false
  if (f.oid !== undefined && f.oid !== null) {
    const oid = toUint(f.oid)
    if (oid === undefined) return false
    f.oid = oid
  }
  f.tid = tid
  return true
}

function order(o: unknown): boolean {
  if (!isObj(o)) return false
  if (typeof o.coin !== 'string' || typeof o.side !== 'string' || !isDec(o.limitPx) || !isDec(o.sz) || !isDec(o.origSz)) return false
  if ((o.timestamp !== undefined && !isNonNegInt(o.timestamp)) || !isNullishCloid(o.cloid)) return false
  const oid = toUint(o.oid)
  if (oid === undefined) return false
  o.oid = oid
  return true
}

function balance(b: unknown): boolean {
  return isObj(b) && typeof b.coin === 'string' && isNonNegInt(b.token) && isDec(b.total) && isDec(b.hold)
}

function position(p: unknown): boolean {
  if (
    !isObj(p) ||
    !isNonNegInt(p.asset_id) ||
    typeof p.symbol !== 'string' ||
    !isDec(p.actual_display) ||
    !isDec(p.pending_exposure_display)
  )
    return false
  const a = toSint(p.actual_qty)
  const e = toSint(p.pending_exposure_qty)
  if (a === undefined || e === undefined) return false
  p.actual_qty = a
  p.pending_exposure_qty = e
  return true
}

function every(xs: unknown, check: (x: unknown) => boolean): boolean {
  if (!Array.isArray(xs)) return false
  for (let i = 0; i < xs.length; i++) if (!check(xs[i])) return false
  return true
}

export function fastFrameData(channel: ValidatedChannel, d: unknown): boolean {
  if (!isObj(d) || !checkUser(d)) return false
  switch (channel) {
    case 'userFills':
      return isOptBool(d.isSnapshot) && every(d.fills, fill)
    case 'spotState':
      return every(d.balances, balance)
    case 'spotCreditState': {
      if (typeof d.authorized !== 'boolean' || !isOptBool(d.isSnapshot)) return false
      if (d.status !== undefined && d.status !== 'active' && d.status !== 'frozen') return false
      if (d.creditUsdAtoms !== undefined) {
        const c = toSint(d.creditUsdAtoms)
        if (c === undefined) return false
        d.creditUsdAtoms = c
      }
      return every(d.positions, position)
    }
    case 'openOrders':
      return isOptBool(d.isSnapshot) && every(d.orders, order)
  }
}
