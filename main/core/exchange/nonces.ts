import type { Journal } from '../journal'
import type { NonceKind } from '../journal/types'

/**
 * Hands out nonces that are strictly increasing per (network, signer, kind): the current Unix
 * millisecond, or one more than the last one handed out or persisted when that is not below
 * it (several writes within one millisecond, or a clock that stepped back). The journal claims
 * the nonce in the same transaction that records the submission, so a restart (or a second
 * process sharing the journal) never reuses one: it refuses a nonce not above the persisted one.
 */
export class NonceAllocator {
  private readonly issued = new Map<string, bigint>()

  constructor(
    private readonly journal: Pick<Journal, 'lastNonce'>,
    private readonly now: () => number = Date.now,
  ) {}

  next(network: string, signer: string, kind: NonceKind = 'envelope'): bigint {
    const k = `${network}|${signer.toLowerCase()}|${kind}`
    let n = BigInt(Math.floor(this.now()))
    const persisted = this.journal.lastNonce(network, signer, kind)
    if (persisted !== null && n <= persisted) n = persisted + 1n
    const mem = this.issued.get(k)
    if (mem !== undefined && n <= mem) n = mem + 1n
    this.issued.set(k, n)
    return n
  }
}

/** Runs tasks one at a time per key (allocate, sign, record must not interleave for one signer). */
export class KeyedMutex {
  private readonly tails = new Map<string, Promise<void>>()

  async run<T>(key: string, task: () => Promise<T>): Promise<T> {
    const prev = this.tails.get(key) ?? Promise.resolve()
    let release!: () => void
    const mine = new Promise<void>((r) => (release = r))
    const tail = prev.then(() => mine)
    this.tails.set(key, tail)
    await prev
    try {
      return await task()
    } finally {
      release()
      if (this.tails.get(key) === tail) this.tails.delete(key)
    }
  }
}
