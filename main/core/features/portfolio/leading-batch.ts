/**
 * Leading-edge batching for pushes to the screen: the first request after a quiet spell runs
 * on the next microtask (so the frames of one tick still make one push), and requests during
 * the `windowMs` after a run are gathered into one run when the window closes. A lone change is
 * never held back; only bursts are coalesced.
 */
export class LeadingBatch<K> {
  private readonly keys = new Set<K>()
  private lastRun = -Infinity
  private scheduled = false
  private timer: ReturnType<typeof setTimeout> | null = null
  private closed = false

  constructor(
    private readonly windowMs: number,
    private readonly run: (keys: K[]) => void,
    private readonly now: () => number = () => performance.now(),
  ) {}

  add(keys: Iterable<K> = []): void {
    for (const k of keys) this.keys.add(k)
    if (this.scheduled || this.closed) return
    this.scheduled = true
    const wait = this.lastRun + this.windowMs - this.now()
    if (wait <= 0) queueMicrotask(() => this.flush())
    else this.timer = setTimeout(() => this.flush(), wait)
  }

  close(): void {
    this.closed = true
    if (this.timer) clearTimeout(this.timer)
    this.timer = null
  }

  private flush(): void {
    this.timer = null
    this.scheduled = false
    if (this.closed) return
    this.lastRun = this.now()
    const batch = [...this.keys]
    this.keys.clear()
    this.run(batch)
  }
}
