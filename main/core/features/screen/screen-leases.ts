import type { ScreenLeaseView } from '../../../contract/types'

/** What a lease is on (the contract's `ScreenTarget`, as its schema checked it). */
export type ScreenTarget = { kind: 'account' | 'credit'; address: string } | { kind: 'overview'; addresses: readonly string[] }

/** A lease lapses this long after its last renewal (a crashed renderer cannot pin the live set). */
export const LEASE_TTL_MS = 60_000

/** What screens watch now, as the live follow-ups read it. */
export interface ScreenSource {
  /** Account pages on screen (lowercase addresses). */
  accounts(): string[]
  /** Credit pages on screen. */
  credits(): string[]
  /** Accounts the overview shows through its filter. */
  overview(): string[]
  /** Called after the leased sets may have changed (a lease taken, retargeted, released or lapsed). */
  onChange(listener: () => void): () => void
}

interface Lease {
  sender: string
  target: ScreenTarget
  expiresAt: number
}

export interface ScreenLeasesDeps {
  now: () => number
  ttlMs?: number
}

/**
 * The leases screens hold on what they watch, per sender (a window, a socket), as polling
 * controllers count their pollers: the live set follows what is leased, not what was read
 * lately. A lease ends when released, when its sender goes away, or when not renewed in time.
 */
export class ScreenLeases implements ScreenSource {
  private readonly leases = new Map<string, Lease>()
  private readonly listeners = new Set<() => void>()
  private nextId = 1
  private timer: ReturnType<typeof setTimeout> | null = null
  private closed = false
  private readonly ttlMs: number

  constructor(private readonly d: ScreenLeasesDeps) {
    this.ttlMs = d.ttlMs ?? LEASE_TTL_MS
  }

  /**
   * Takes a lease for `sender`, or renews and retargets its lease `leaseId`. A lease id the
   * sender does not hold (lapsed, or another sender's) gets a new lease, so a renewal after a
   * lapse or a reconnect recovers by itself.
   */
  watch(sender: string, target: ScreenTarget, leaseId?: string): ScreenLeaseView {
    this.sweep()
    const held = leaseId === undefined ? undefined : this.leases.get(leaseId)
    const id = held && held.sender === sender ? leaseId! : `lease-${this.nextId++}`
    const normal = normalise(target)
    const changed = !held || held.sender !== sender || !sameTarget(held.target, normal)
    this.leases.set(id, { sender, target: normal, expiresAt: this.d.now() + this.ttlMs })
    this.schedule()
    if (changed) this.changed()
    return { leaseId: id, ttlMs: this.ttlMs, renewEveryMs: Math.floor(this.ttlMs / 3) }
  }

  /** Gives `leaseId` back; false when `sender` does not hold it (lapsed, or not its own). */
  release(sender: string, leaseId: string): boolean {
    const held = this.leases.get(leaseId)
    if (!held || held.sender !== sender) return false
    this.leases.delete(leaseId)
    this.changed()
    return true
  }

  /** The sender went away (window closed or reloaded, socket dropped): all its leases end at once. */
  senderGone(sender: string): void {
    let gone = false
    for (const [id, l] of this.leases) {
      if (l.sender !== sender) continue
      this.leases.delete(id)
      gone = true
    }
    if (gone) this.changed()
  }

  /** Ends the leases not renewed in time. */
  sweep(): void {
    const now = this.d.now()
    let gone = false
    for (const [id, l] of this.leases) {
      if (l.expiresAt > now) continue
      this.leases.delete(id)
      gone = true
    }
    if (gone) this.changed()
  }

  accounts(): string[] {
    return this.addresses('account')
  }

  credits(): string[] {
    return this.addresses('credit')
  }

  overview(): string[] {
    return this.addresses('overview')
  }

  /** Leases held now (all senders). */
  size(): number {
    return this.leases.size
  }

  onChange(listener: () => void): () => void {
    this.listeners.add(listener)
    return () => this.listeners.delete(listener)
  }

  close(): void {
    this.closed = true
    if (this.timer) clearTimeout(this.timer)
    this.timer = null
    this.leases.clear()
    this.listeners.clear()
  }

  private addresses(kind: ScreenTarget['kind']): string[] {
    const out = new Set<string>()
    for (const { target: t } of this.leases.values()) {
      if (t.kind !== kind) continue
      if (t.kind === 'overview') for (const a of t.addresses) out.add(a)
      else out.add(t.address)
    }
    return [...out]
  }

  /** One timer, at the earliest expiry: a lapsed lease is dropped even when no call comes. */
  private schedule(): void {
    if (this.closed) return
    if (this.timer) clearTimeout(this.timer)
    this.timer = null
    let first = Infinity
    for (const l of this.leases.values()) first = Math.min(first, l.expiresAt)
    if (first === Infinity) return
    this.timer = setTimeout(
      () => {
        this.timer = null
        this.sweep()
        this.schedule()
      },
      Math.max(0, first - this.d.now()) + 1,
    )
    ;(this.timer as { unref?: () => void }).unref?.()
  }

  private changed(): void {
    for (const l of this.listeners) l()
  }
}

function normalise(t: ScreenTarget): ScreenTarget {
  if (t.kind === 'overview') return { kind: 'overview', addresses: [...new Set(t.addresses.map(lower))] }
  return { kind: t.kind, address: lower(t.address) }
}

function lower(a: string): string {
  return a.toLowerCase()
}

function sameTarget(a: ScreenTarget, b: ScreenTarget): boolean {
  if (a.kind === 'overview' && b.kind === 'overview')
    return a.addresses.length === b.addresses.length && a.addresses.every((x, i) => x === b.addresses[i])
  return a.kind === b.kind && a.kind !== 'overview' && b.kind !== 'overview' && a.address === b.address
}
