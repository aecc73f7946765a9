import type { Entry, SnapshotKind } from './account-entry'

/** The latest snapshot text of each topic, to recognise exact repeats of a frame. */
export class RepeatTexts {
  /** Latest snapshot texts -> their topic. */
  private readonly repeats = new Map<string, { e: Entry; kind: SnapshotKind }>()
  /** How many remembered texts have each length: most new texts are ruled out without hashing. */
  private readonly repeatLengths = new Map<number, number>()

  /**
   * The throttled snapshot channels push whenever an account is touched, so the same frame
   * often comes again. An exact repeat of a topic's latest text changes nothing but the age:
   * refresh that and skip parse and validation (the eager path would drop it as unchanged
   * anyway, after the work). Keyed by the text itself, so nothing is guessed from its layout.
   */
  skip(text: string, now: () => number): boolean {
    // Cheap rejections first: hashing a long text costs more than these.
    if (this.repeatLengths.get(text.length) === undefined || text.startsWith('{"channel":"userFills"')) return false
    const hit = this.repeats.get(text)
    if (hit === undefined) return false
    const slot = hit.e.state[hit.kind]
    if (slot === null) return false
    slot.at = now()
    if (hit.kind === 'openOrders') hit.e.ordersFrameAt = slot.at
    return true
  }

  /** Remembers `text` as the latest of `e`'s `kind` (undefined: none), forgetting the one before. */
  remember(e: Entry, kind: SnapshotKind, text: string | undefined): void {
    const prev = e.texts[kind]
    if (prev !== undefined) {
      this.repeats.delete(prev)
      const n = this.repeatLengths.get(prev.length)!
      if (n <= 1) this.repeatLengths.delete(prev.length)
      else this.repeatLengths.set(prev.length, n - 1)
    }
    e.texts[kind] = undefined
    // Large open-order lists are not worth keeping twice.
    if (text === undefined || text.length > 65_536) return
    e.texts[kind] = text
    this.repeats.set(text, { e, kind })
    this.repeatLengths.set(text.length, (this.repeatLengths.get(text.length) ?? 0) + 1)
  }
}
