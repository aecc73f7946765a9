import * as v from 'valibot'
import { DeskError } from '../../errors/desk-error'
import { EARN_DATA_SCHEMAS, EarnEnvelopeSchema, type EarnDataOf, type EarnRequestType } from '../../wire/earn'
import type { Lane } from '../scheduler'
import { postJson, TransportFailure, type HttpPoster } from '../trade/http-post'
import type { SchedulerLike } from '../trade/submitter'

/** Path of the single earn endpoint on the pool URL. */
export const EARN_PATH = '/api/v3/earn'

/**
 * One earn answer read `code`-first. `ok` carries validated data; the other kinds say what the
 * caller may do: `retry` (131002 backend unavailable, 131006 upstream timeout: never an empty
 * result), `rateLimited` (201005: wait for the next second), `invalid` (131004 with its message).
 */
export type EarnAnswer<T> =
  | { kind: 'ok'; data: T; traceId: string | null; text: string }
  | { kind: 'retry'; code: 131002 | 131006; message: string; traceId: string | null; text: string }
  | { kind: 'rateLimited'; message: string; traceId: string | null }
  | { kind: 'invalid'; message: string; traceId: string | null; text: string }

export class EarnError extends DeskError {}

export interface EarnHttpOptions {
  /** Pool base URL; requests go to `${poolUrl}/api/v3/earn`. */
  poolUrl: string
  post?: HttpPoster
  scheduler?: SchedulerLike
  timeoutMs?: number
  now?: () => number
  sleep?: (ms: number) => Promise<void>
}

/** The transport of the earn pool: one POST, `code`-first parsing, schema validation of `data`. */
export class EarnHttp {
  readonly url: string
  private readonly post: HttpPoster
  private readonly timeoutMs: number
  readonly now: () => number
  readonly sleep: (ms: number) => Promise<void>

  constructor(private readonly o: EarnHttpOptions) {
    this.url = o.poolUrl.replace(/\/+$/, '') + EARN_PATH
    this.post = o.post ?? postJson
    this.timeoutMs = o.timeoutMs ?? 15_000
    this.now = o.now ?? Date.now
    this.sleep = o.sleep ?? ((ms) => new Promise((r) => setTimeout(r, ms)))
  }

  /** Sends `body` once (through the scheduler when one is set). Transport failures propagate as TransportFailure. */
  async once<T extends EarnRequestType>(type: T, body: string, lane: Lane = 'operator'): Promise<EarnAnswer<EarnDataOf[T]>> {
    const send = () => this.post(this.url, body, { timeoutMs: this.timeoutMs })
    const res = this.o.scheduler ? await this.o.scheduler.run(lane, send) : await send()
    const traceId = res.headers['trace_id'] ?? res.headers['x-trace-id'] ?? null
    let json: unknown
    try {
      json = JSON.parse(res.text)
    } catch {
      throw new EarnError('EarnMalformedResponse', `the earn pool answered ${type} with HTTP ${res.status} and a body that is not JSON`, {
        type,
        httpStatus: res.status,
      })
    }
    const env = v.safeParse(EarnEnvelopeSchema, json)
    if (!env.success) {
      throw new EarnError(
        'EarnMalformedResponse',
        `the earn pool answered ${type} with an unexpected envelope: ${env.issues[0]?.message ?? ''}`,
        { type },
      )
    }
    const e = env.output
    if (e.code === 0) {
      const data = v.safeParse(EARN_DATA_SCHEMAS[type], e.data)
      if (!data.success) {
        const path = data.issues[0] ? (v.getDotPath(data.issues[0]) ?? '') : ''
        throw new EarnError(
          'EarnMalformedResponse',
          `the earn pool's ${type} data does not match its schema at ${path || '(root)'}: ${data.issues[0]?.message ?? ''}`,
          { type, path },
        )
      }
      return { kind: 'ok', data: data.output as EarnDataOf[T], traceId, text: res.text }
    }
    if (e.code === 131002 || e.code === 131006) return { kind: 'retry', code: e.code, message: e.message, traceId, text: res.text }
    if (e.code === 201005) return { kind: 'rateLimited', message: e.message, traceId }
    return { kind: 'invalid', message: e.message, traceId, text: res.text }
  }

  /** Milliseconds to the start of the next second (201005: "wait for the next second"). */
  untilNextSecond(): number {
    return 1000 - (this.now() % 1000) + 5
  }

  /**
   * A read, retried until it answers: 131002 / 131006 and transport failures with backoff
   * (never read as empty), 201005 at the next second. 131004 throws EarnInvalid.
   */
  async read<T extends EarnRequestType>(
    type: T,
    body: Record<string, unknown>,
    opts: { lane?: Lane; maxAttempts?: number } = {},
  ): Promise<EarnDataOf[T]> {
    const text = JSON.stringify({ type, ...body })
    const max = opts.maxAttempts ?? 8
    let last = ''
    for (let attempt = 1; attempt <= max; attempt++) {
      let a: EarnAnswer<EarnDataOf[T]>
      try {
        a = await this.once(type, text, opts.lane ?? 'background')
      } catch (e) {
        if (!(e instanceof TransportFailure)) throw e
        last = e.message
        await this.sleep(backoff(attempt))
        continue
      }
      if (a.kind === 'ok') return a.data
      if (a.kind === 'invalid') throw new EarnError('EarnInvalid', `earn ${type}: ${a.message}`, { type, poolMessage: a.message })
      if (a.kind === 'rateLimited') {
        last = '201005 rate limit exceeded'
        await this.sleep(this.untilNextSecond())
        continue
      }
      last = `${a.code} ${a.message}`
      await this.sleep(backoff(attempt))
    }
    throw new EarnError(
      'EarnUnavailable',
      `the earn pool did not answer ${type} after ${max} attempts (${last}); nothing is assumed empty`,
      { type, last },
    )
  }
}

export function backoff(attempt: number): number {
  return Math.round(Math.min(200 * 2 ** (attempt - 1), 5000) * (1 + Math.random() * 0.2))
}
