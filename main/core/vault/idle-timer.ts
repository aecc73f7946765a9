/**
 * Fires `onIdle` once after `idleMs` without a `touch()`. The host calls `touch()` on operator
 * activity; the vault arms the timer on unlock and disarms it on lock.
 */
export class IdleTimer {
  private timer: ReturnType<typeof setTimeout> | null = null
  private idleMs: number | null

  constructor(
    idleMs: number | null,
    private readonly onIdle: () => void,
  ) {
    this.idleMs = idleMs
  }

  /** `null` disables auto-lock. */
  setIdleMs(idleMs: number | null): void {
    this.idleMs = idleMs
    if (this.timer !== null) this.arm()
  }

  getIdleMs(): number | null {
    return this.idleMs
  }

  get armed(): boolean {
    return this.timer !== null
  }

  arm(): void {
    this.disarm()
    if (this.idleMs === null) return
    this.timer = setTimeout(() => {
      this.timer = null
      this.onIdle()
    }, this.idleMs)
    // An idle timer must never keep a CLI process alive.
    this.timer.unref?.()
  }

  /** Operator activity: restart the countdown if armed. */
  touch(): void {
    if (this.timer !== null) this.arm()
  }

  disarm(): void {
    if (this.timer !== null) clearTimeout(this.timer)
    this.timer = null
  }
}
