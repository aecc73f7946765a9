/**
 * secp256k1 ECDSA verification against a known public key, tuned for checking thousands of
 * signatures by a handful of team admins. Node's OpenSSL is no help here: crypto.verify always
 * hashes the message for EC keys (SHA-256 when the algorithm is null), and an EIP-712 signature is
 * over the 32-byte digest itself. @noble/curves is correct but spends ~1.5 ms per verification on
 * this kind of machine (complete projective formulas, constant-time ladder, a reduction after every
 * field operation). Here: Jacobian coordinates with mixed additions (a = 0), lazy reductions, and
 * per-key fixed-window tables (signed 8-bit digits, 33 windows x 128 affine points), so
 * u1·G + u2·Q costs ~64 point additions and no doublings. Public data only, so not constant time.
 * The result is the same decision as viem's recovery: x(R) = r exactly and R's y parity = v - 27.
 */

/** A Jacobian point (x = X/Z², y = Y/Z³), mutated in place; Z = 0 is the point at infinity. */
interface Jac {
  X: bigint
  Y: bigint
  Z: bigint
}

/** A public key's (or G's) tables: d·2^(8w)·Q for every window w and digit d in 1..128, affine. */
export interface KeyTable {
  readonly xs: bigint[]
  readonly ys: bigint[]
  /** acc += k·Q, k in [0, N). */
  addMultiple(acc: Jac, k: bigint): void
}
type KeyTableT = KeyTable

export interface BatchItem {
  key: KeyTableT
  digest: bigint
  /** r in [1, N), s in [1, N): the caller's range checks */
  r: bigint
  s: bigint
  recovery: 0 | 1
}

/**
 * Everything below is one self-contained function (it references no module-level value, only
 * BigInt and built-ins), so verify-worker.ts can send its source text to a worker thread and run
 * the very same code there, whatever bundler built this module.
 */
export function ecdsaKit() {
  const P = 0xfffffffffffffffffffffffffffffffffffffffffffffffffffffffefffffc2fn
  const N = 0xfffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141n
  const GX = 0x79be667ef9dcbbac55a06295ce870b07029bfcdb2dce28d959f2815b16f81798n
  const GY = 0x483ada7726a3c4655da4fbfc0e1108a8fd17b448a68554199c47d08ffb10d4b8n
  const WINDOWS = 33 // 256 bits in signed 8-bit digits, plus the last carry
  const PER_WINDOW = 128 // digits 1..128; negative digits use -y

  /** Modular inverse by extended Euclid (a in [1, m), m prime). */
  function inv(a: bigint, m: bigint): bigint {
    let x = a
    let y = m
    let u = 1n
    let v = 0n
    while (x !== 0n) {
      const q = y / x
      ;[x, y, u, v] = [y - q * x, x, v - q * u, u]
    }
    return v < 0n ? v + m : v
  }

  function dbl(a: Jac): void {
    if (a.Z === 0n || a.Y === 0n) {
      a.Z = 0n
      return
    }
    const A = (a.X * a.X) % P
    const B = (a.Y * a.Y) % P
    const C = (B * B) % P
    const xb = a.X + B
    let D = (2n * (xb * xb - A - C)) % P
    if (D < 0n) D += P
    const E = 3n * A
    const F = (E * E) % P
    let X3 = (F - 2n * D) % P
    if (X3 < 0n) X3 += P
    let Y3 = (E * (D - X3) - 8n * C) % P
    if (Y3 < 0n) Y3 += P
    a.Z = (2n * a.Y * a.Z) % P
    a.X = X3
    a.Y = Y3
  }

  /** a += (x2, y2) (affine, never infinity). */
  function madd(a: Jac, x2: bigint, y2: bigint): void {
    if (a.Z === 0n) {
      a.X = x2
      a.Y = y2
      a.Z = 1n
      return
    }
    const z1z1 = (a.Z * a.Z) % P
    let h = ((x2 * z1z1) % P) - a.X
    if (h < 0n) h += P
    let rr = ((((y2 * a.Z) % P) * z1z1) % P) - a.Y
    if (rr < 0n) rr += P
    if (h === 0n) {
      if (rr === 0n) dbl(a)
      else a.Z = 0n // a = -(x2, y2)
      return
    }
    const hh = (h * h) % P
    const hhh = (h * hh) % P
    const v = (a.X * hh) % P
    let X3 = (rr * rr - hhh - 2n * v) % P
    if (X3 < 0n) X3 += P
    let Y3 = (rr * (v - X3) - a.Y * hhh) % P
    if (Y3 < 0n) Y3 += P
    a.Z = (a.Z * h) % P
    a.X = X3
    a.Y = Y3
  }

  /** Affine forms of many Jacobian points with one inversion (Montgomery's trick); none at infinity. */
  function normalize(points: Jac[], xs: bigint[], ys: bigint[], at: number): void {
    const prefix: bigint[] = new Array(points.length)
    let acc = 1n
    for (let i = 0; i < points.length; i++) {
      prefix[i] = acc
      acc = (acc * points[i]!.Z) % P
    }
    let invAcc = inv(acc, P)
    for (let i = points.length - 1; i >= 0; i--) {
      const p = points[i]!
      const zi = (invAcc * prefix[i]!) % P
      invAcc = (invAcc * p.Z) % P
      const zi2 = (zi * zi) % P
      xs[at + i] = (p.X * zi2) % P
      ys[at + i] = (((p.Y * zi2) % P) * zi) % P
    }
  }

  /** d·2^(8w)·Q for every window w and digit d in 1..128, affine. */
  class KeyTable implements KeyTableT {
    readonly xs: bigint[] = new Array(WINDOWS * PER_WINDOW)
    readonly ys: bigint[] = new Array(WINDOWS * PER_WINDOW)

    /** (x, y) must be a point of the curve other than infinity (checked by the caller). */
    constructor(x: bigint, y: bigint) {
      let bx = x
      let by = y
      for (let w = 0; w < WINDOWS; w++) {
        const row: Jac[] = []
        const j: Jac = { X: bx, Y: by, Z: 1n }
        row.push({ ...j })
        for (let d = 2; d <= PER_WINDOW; d++) {
          madd(j, bx, by)
          row.push({ ...j })
        }
        normalize(row, this.xs, this.ys, w * PER_WINDOW)
        // next window's base: 256·base = 2·(128·base)
        const next: Jac = { X: this.xs[w * PER_WINDOW + PER_WINDOW - 1]!, Y: this.ys[w * PER_WINDOW + PER_WINDOW - 1]!, Z: 1n }
        dbl(next)
        const zi = inv(next.Z, P)
        const zi2 = (zi * zi) % P
        bx = (next.X * zi2) % P
        by = (((next.Y * zi2) % P) * zi) % P
      }
    }

    /** acc += k·Q, k in [0, N). */
    addMultiple(acc: Jac, k: bigint): void {
      const digits = signedDigits(k)
      for (let w = 0; w < WINDOWS; w++) {
        const d = digits[w]!
        if (d === 0) continue
        const i = w * PER_WINDOW + Math.abs(d) - 1
        const y = this.ys[i]!
        madd(acc, this.xs[i]!, d > 0 ? y : P - y)
      }
    }
  }

  /** k in [0, N) as 33 digits in [-127, 128], k = sum d_w·256^w. */
  function signedDigits(k: bigint): Int16Array {
    const hex = k.toString(16).padStart(64, '0')
    const out = new Int16Array(WINDOWS)
    let carry = 0
    for (let w = 0; w < WINDOWS; w++) {
      let d = (w < 32 ? parseInt(hex.slice(62 - 2 * w, 64 - 2 * w), 16) : 0) + carry
      if (d > PER_WINDOW) {
        d -= 256
        carry = 1
      } else carry = 0
      out[w] = d
    }
    return out
  }

  /** Inverses of every value (all in [1, m)) with one inversion (Montgomery's trick). */
  function invertAll(values: bigint[], m: bigint): bigint[] {
    const out: bigint[] = new Array(values.length)
    let acc = 1n
    for (let i = 0; i < values.length; i++) {
      out[i] = acc
      acc = (acc * values[i]!) % m
    }
    let invAcc = inv(acc, m)
    for (let i = values.length - 1; i >= 0; i--) {
      const x = values[i]!
      out[i] = (invAcc * out[i]!) % m
      invAcc = (invAcc * x) % m
    }
    return out
  }

  let gTable: KeyTableT | null = null
  const baseTable = () => (gTable ??= new KeyTable(GX, GY))

  /** True when (x, y) is on y² = x³ + 7 with coordinates in range (not infinity). */
  function onCurve(x: bigint, y: bigint): boolean {
    return x >= 0n && x < P && y >= 0n && y < P && (y * y - (x * x * x + 7n)) % P === 0n
  }

  /**
   * True when (r, s, recovery) is the key's signature over `digest` exactly as recovery reads it:
   * R = u1·G + u2·Q has x = r and y parity = recovery. Range and low-s checks are the caller's.
   */
  function verifyWithTable(key: KeyTableT, digest: bigint, r: bigint, s: bigint, recovery: 0 | 1): boolean {
    const si = inv(s, N)
    const acc: Jac = { X: 0n, Y: 0n, Z: 0n }
    baseTable().addMultiple(acc, ((digest % N) * si) % N)
    key.addMultiple(acc, (r * si) % N)
    if (acc.Z === 0n) return false
    const z2 = (acc.Z * acc.Z) % P
    if ((r * z2) % P !== acc.X) return false
    const zi = inv(acc.Z, P)
    const y = (((acc.Y * ((zi * zi) % P)) % P) * zi) % P
    return Number(y & 1n) === recovery
  }

  /**
   * verifyWithTable for many signatures at once, same decisions: the accumulators stay affine and
   * each of the 66 steps adds one table point to every accumulator, sharing one field inversion
   * across all of them (Montgomery's trick), so a point addition costs ~6 multiplications instead
   * of ~11, and the s⁻¹ and the final Z⁻¹ disappear into batches. An accumulator that meets the
   * table point's x (doubling or cancelling, only for crafted inputs) leaves the batch and is
   * decided by verifyWithTable.
   */
  function verifyBatch(items: readonly BatchItem[]): boolean[] {
    const n = items.length
    const sInv = invertAll(
      items.map((it) => it.s),
      N,
    )
    const g = baseTable()
    const d1 = items.map((it, i) => signedDigits(((it.digest % N) * sInv[i]!) % N))
    const d2 = items.map((it, i) => signedDigits((it.r * sInv[i]!) % N))
    const ax: bigint[] = new Array(n).fill(0n)
    const ay: bigint[] = new Array(n).fill(0n)
    const empty = new Uint8Array(n).fill(1) // accumulator at infinity
    const alone = new Uint8Array(n) // left the batch
    const idx: number[] = []
    const px: bigint[] = []
    const py: bigint[] = []
    const den: bigint[] = []
    for (let step = 0; step < 2 * WINDOWS; step++) {
      const w = step % WINDOWS
      idx.length = px.length = py.length = den.length = 0
      for (let i = 0; i < n; i++) {
        if (alone[i]) continue
        const d = (step < WINDOWS ? d1[i]! : d2[i]!)[w]!
        if (d === 0) continue
        const t = step < WINDOWS ? g : items[i]!.key
        const at = w * PER_WINDOW + Math.abs(d) - 1
        const x2 = t.xs[at]!
        const y2 = d > 0 ? t.ys[at]! : P - t.ys[at]!
        if (empty[i]) {
          ax[i] = x2
          ay[i] = y2
          empty[i] = 0
          continue
        }
        let dx = x2 - ax[i]!
        if (dx < 0n) dx += P
        if (dx === 0n) {
          alone[i] = 1
          continue
        }
        idx.push(i)
        px.push(x2)
        py.push(y2)
        den.push(dx)
      }
      if (den.length === 0) continue
      const invs = invertAll(den, P)
      for (let k = 0; k < idx.length; k++) {
        const i = idx[k]!
        const x1 = ax[i]!
        const y1 = ay[i]!
        const lambda = ((py[k]! - y1) * invs[k]!) % P
        let x3 = (lambda * lambda - x1 - px[k]!) % P
        if (x3 < 0n) x3 += P
        let y3 = (lambda * (x1 - x3) - y1) % P
        if (y3 < 0n) y3 += P
        ax[i] = x3
        ay[i] = y3
      }
    }
    return items.map((it, i) => {
      if (alone[i]) return verifyWithTable(it.key, it.digest, it.r, it.s, it.recovery)
      return !empty[i] && ax[i] === it.r && Number(ay[i]! & 1n) === it.recovery
    })
  }

  return { KeyTable: KeyTable as new (x: bigint, y: bigint) => KeyTableT, onCurve, verifyWithTable, verifyBatch }
}

const kit = ecdsaKit()
export const KeyTable = kit.KeyTable
export const onCurve = kit.onCurve
export const verifyWithTable = kit.verifyWithTable
export const verifyBatch = kit.verifyBatch
