/**
 * Test-side WebSocket client: queues every frame and lets a test await the next frame that
 * matches, so assertions never depend on timing.
 */
import { WebSocket } from 'ws'

export interface Frame {
  channel: string
  data?: any
}

export class TestSocket {
  readonly frames: Frame[] = []
  private waiters: {
    pred: (f: Frame) => boolean
    resolve: (f: Frame) => void
    reject: (e: Error) => void
    timer: ReturnType<typeof setTimeout>
  }[] = []
  private cursor = 0
  closed: { code: number; reason: string } | null = null
  private closeWaiters: ((c: { code: number; reason: string }) => void)[] = []

  private constructor(readonly ws: WebSocket) {
    ws.on('message', (d) => {
      const f = JSON.parse(d.toString()) as Frame
      this.frames.push(f)
      this.flush()
    })
    ws.on('close', (code, reason) => {
      this.closed = { code, reason: reason.toString() }
      for (const w of this.closeWaiters) w(this.closed)
      this.closeWaiters = []
    })
  }

  static open(url: string): Promise<TestSocket> {
    return new Promise((resolve, reject) => {
      const ws = new WebSocket(url)
      const s = new TestSocket(ws)
      ws.once('open', () => resolve(s))
      ws.once('error', reject)
    })
  }

  send(obj: unknown): void {
    this.ws.send(typeof obj === 'string' ? obj : JSON.stringify(obj))
  }

  /** Next unread frame matching `pred` (frames before it that do not match stay unread). */
  next(pred: (f: Frame) => boolean = () => true, timeoutMs = 5000): Promise<Frame> {
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.waiters = this.waiters.filter((w) => w.timer !== timer)
        reject(new Error(`no matching frame within ${timeoutMs} ms; got ${JSON.stringify(this.frames.slice(-5))}`))
      }, timeoutMs)
      this.waiters.push({ pred, resolve, reject, timer })
      this.flush()
    })
  }

  channel(name: string, timeoutMs?: number): Promise<Frame> {
    return this.next((f) => f.channel === name, timeoutMs)
  }

  /** Sends and returns the next frame of one of `channels`. */
  async request(obj: unknown, channels = ['subscriptionResponse', 'error']): Promise<Frame> {
    const p = this.next((f) => channels.includes(f.channel))
    this.send(obj)
    return p
  }

  waitClose(): Promise<{ code: number; reason: string }> {
    if (this.closed) return Promise.resolve(this.closed)
    return new Promise((r) => this.closeWaiters.push(r))
  }

  close(): void {
    this.ws.terminate()
  }

  private taken = new Set<number>()
  private flush(): void {
    for (const w of [...this.waiters]) {
      for (let i = this.cursor; i < this.frames.length; i++) {
        if (this.taken.has(i)) continue
        const f = this.frames[i]!
        if (w.pred(f)) {
          this.taken.add(i)
          clearTimeout(w.timer)
          this.waiters.splice(this.waiters.indexOf(w), 1)
          w.resolve(f)
          break
        }
      }
    }
    while (this.taken.has(this.cursor)) this.cursor++
  }
}
