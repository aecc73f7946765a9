import type { Clock } from './clock'

/** One line per problem, at most 20 a minute (a garbage flood must not flood the log). */
export class LogLimiter {
  private readonly lines: number[] = []
  private suppressed = 0

  constructor(
    private readonly clock: Clock,
    private readonly write: (line: string) => void,
  ) {}

  line(line: string): void {
    const now = this.clock.now()
    const l = this.lines
    while (l.length > 0 && l[0]! <= now - 60_000) l.shift()
    if (l.length >= 20) {
      this.suppressed++
      return
    }
    l.push(now)
    const extra = this.suppressed > 0 ? ` (${this.suppressed} similar line(s) suppressed)` : ''
    this.suppressed = 0
    this.write(`stream: ${line}${extra}`)
  }
}
