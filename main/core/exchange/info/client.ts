import * as v from 'valibot'
import { DeskError } from '../../errors/desk-error'
import type { Lane, RateScheduler } from '../scheduler'
import type { InfoDef, InfoParams, InfoResult } from './define'
import { InfoError, parseRetryAfterMs } from './errors'
import { parseJsonLossless } from './lossless-json'
import * as T from './types'

/** The spec's /info body cap; larger bodies get HTTP 413, so they are refused before sending. */
export const INFO_MAX_BODY_BYTES = 64 * 1024

export interface InfoClientOptions {
  /** Trading service base URL; requests go to `${baseUrl}/info`. */
  baseUrl: string
  /** The host's scheduler (one per host, shared by every caller of that host). */
  scheduler: RateScheduler
  fetch?: typeof fetch
  /** Per-attempt timeout (default 10 s). */
  timeoutMs?: number
  /** How many `RateLimited` answers are waited out before giving up (default 5). */
  rateLimitRetries?: number
  /** How many transport failures or 5xx answers are retried (default 2). */
  transientRetries?: number
  /** Largest response accepted (default 16 MiB); bigger is `InfoMalformedResponse`. */
  maxResponseBytes?: number
}

export interface CallOptions {
  /** Scheduler lane; defaults to `background`. */
  lane?: Lane
}

type Def = InfoDef<string, v.GenericSchema, v.GenericSchema>

function bodyJson(value: unknown): string {
  return JSON.stringify(value, (_k, x: unknown) => (typeof x === 'bigint' ? x.toString() : x))
}

function firstIssue(issues: readonly v.BaseIssue<unknown>[]): { message: string; path: string } {
  const i = issues[0]
  const path = i ? (v.getDotPath(i) ?? '') : ''
  return { message: i ? i.message : 'invalid', path }
}

/**
 * Typed client for `POST /info`: every read goes through the host's rate scheduler in a lane,
 * waits out `RateLimited` with the stated delay, and validates the answer against the type's
 * schema. Nothing unvalidated reaches the caller.
 */
export class InfoClient {
  private readonly url: string
  private readonly fetchImpl: typeof fetch
  private readonly timeoutMs: number
  private readonly rateLimitRetries: number
  private readonly transientRetries: number
  private readonly maxResponseBytes: number
  readonly scheduler: RateScheduler
  /**
   * Reads queued and not started yet, by lane and exact body: the same read asked again while
   * one waits for its turn shares that one's answer (still read after the ask), so a backed-up
   * lane holds each distinct read once instead of a refresh's every repeat.
   */
  private readonly waiting = new Map<string, Promise<unknown>>()

  constructor(opts: InfoClientOptions) {
    this.url = opts.baseUrl.replace(/\/+$/, '') + '/info'
    this.scheduler = opts.scheduler
    this.fetchImpl = opts.fetch ?? ((...a) => fetch(...a))
    this.timeoutMs = opts.timeoutMs ?? 10_000
    this.rateLimitRetries = opts.rateLimitRetries ?? 5
    this.transientRetries = opts.transientRetries ?? 2
    this.maxResponseBytes = opts.maxResponseBytes ?? 16 * 1024 * 1024
  }

  /** Runs one /info query of type `def` with `params`; resolves to the validated response. */
  async call<D extends Def>(def: D, params: InfoParams<D>, opts: CallOptions = {}): Promise<InfoResult<D>> {
    const checked = v.safeParse(def.request, params)
    if (!checked.success) {
      const { message, path } = firstIssue(checked.issues)
      throw new InfoError(
        'InfoInvalidParams',
        `${def.type}: invalid parameter ${path || ''} (${message}); nothing was sent`.replace('  ', ' '),
        { infoType: def.type, path },
      )
    }
    const fields = def.toBody ? def.toBody(checked.output) : (checked.output as Record<string, unknown>)
    const body = bodyJson({ type: def.type, ...fields })
    if (Buffer.byteLength(body, 'utf8') > INFO_MAX_BODY_BYTES) {
      throw new InfoError('InfoRequestTooLarge', `${def.type}: request body exceeds the 64 KiB /info limit; nothing was sent`, {
        infoType: def.type,
      })
    }
    const lane = opts.lane ?? 'background'
    let rateLimited = 0
    let transient = 0
    for (;;) {
      try {
        const raw = await (rateLimited + transient === 0
          ? this.shared(lane, def.type, body)
          : this.scheduler.run(lane, () => this.post(def.type, body), def.type))
        return this.validate(def, raw) as InfoResult<D>
      } catch (e) {
        if (!(e instanceof InfoError)) throw e
        if (e.code === 'RateLimited' && rateLimited < this.rateLimitRetries) {
          rateLimited++
          this.scheduler.pauseFor(typeof e.details?.retryAfterMs === 'number' ? e.details.retryAfterMs : 1000)
          continue
        }
        if (e.retryable && e.code !== 'RateLimited' && transient < this.transientRetries) {
          transient++
          continue
        }
        throw e
      }
    }
  }

  /** One request for every identical read asked while it waits for the budget (see `waiting`). */
  private shared(lane: Lane, infoType: string, body: string): Promise<unknown> {
    const key = `${lane} ${body}`
    const queued = this.waiting.get(key)
    if (queued) return queued
    const p: Promise<unknown> = this.scheduler.run(
      lane,
      () => {
        // Started: a read asked from now on needs an answer sent after it, so it queues its own.
        if (this.waiting.get(key) === p) this.waiting.delete(key)
        return this.post(infoType, body)
      },
      infoType,
    )
    this.waiting.set(key, p)
    const forget = () => {
      if (this.waiting.get(key) === p) this.waiting.delete(key)
    }
    p.then(forget, forget)
    return p
  }

  private async post(infoType: string, body: string): Promise<unknown> {
    const ac = new AbortController()
    const timer = setTimeout(() => ac.abort(), this.timeoutMs)
    let status: number
    let text: string
    try {
      const res = await this.fetchImpl(this.url, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body,
        signal: ac.signal,
      })
      status = res.status
      const len = Number(res.headers.get('content-length') ?? '0')
      if (len > this.maxResponseBytes)
        throw new InfoError('InfoMalformedResponse', `${infoType}: response of ${len} bytes exceeds the client limit`, {
          infoType,
          httpStatus: status,
        })
      text = await res.text()
    } catch (e) {
      if (e instanceof InfoError) throw e
      if (ac.signal.aborted)
        throw new InfoError('InfoTimeout', `${infoType}: no answer within ${this.timeoutMs} ms`, { infoType, retryable: true })
      throw new InfoError('InfoUnreachable', `${infoType}: the trading service could not be reached (${this.url})`, {
        infoType,
        retryable: true,
      })
    } finally {
      clearTimeout(timer)
    }
    if (text.length > this.maxResponseBytes)
      throw new InfoError('InfoMalformedResponse', `${infoType}: response exceeds the client limit`, { infoType, httpStatus: status })
    let json: unknown
    try {
      json = parseJsonLossless(text)
    } catch {
      if (status >= 500)
        throw new InfoError('InfoServerError', `${infoType}: the service failed with HTTP ${status}`, {
          infoType,
          httpStatus: status,
          retryable: true,
        })
      if (status === 413)
        throw new InfoError('InfoRequestTooLarge', `${infoType}: the service refused the body as too large (HTTP 413)`, {
          infoType,
          httpStatus: 413,
        })
      throw new InfoError('InfoMalformedResponse', `${infoType}: the service answered HTTP ${status} with a body that is not JSON`, {
        infoType,
        httpStatus: status,
      })
    }
    const err = this.errorOf(json)
    if (status === 429) {
      const retryAfterMs = parseRetryAfterMs(err?.message) ?? 1000
      throw new InfoError('RateLimited', `${infoType}: rate limited by the service, retry after ${retryAfterMs} ms`, {
        infoType,
        httpStatus: 429,
        retryable: true,
        retryAfterMs,
      })
    }
    if (status === 413)
      throw new InfoError('InfoRequestTooLarge', `${infoType}: the service refused the body as too large (HTTP 413)`, {
        infoType,
        httpStatus: 413,
      })
    if (status < 200 || status >= 300) {
      if (err)
        throw new InfoError(err.code, `${infoType}: ${err.message || err.code}`, { infoType, httpStatus: status, retryable: status >= 500 })
      throw new InfoError(status >= 500 ? 'InfoServerError' : 'InfoMalformedResponse', `${infoType}: the service answered HTTP ${status}`, {
        infoType,
        httpStatus: status,
        retryable: status >= 500,
      })
    }
    // A refused read can answer 200 with an in-band error and an empty list: never read it as empty.
    if (err) throw new InfoError(err.code, `${infoType}: ${err.message || err.code}`, { infoType, httpStatus: status, inBand: true })
    return json
  }

  private errorOf(json: unknown): { code: string; message: string } | null {
    if (typeof json !== 'object' || json === null || Array.isArray(json)) return null
    const e = (json as { error?: unknown }).error
    if (e === undefined || e === null) return null
    if (typeof e === 'string') return { code: e, message: e }
    if (typeof e === 'object' && typeof (e as { code?: unknown }).code === 'string') {
      const m = (e as { message?: unknown }).message
      return { code: (e as { code: string }).code, message: typeof m === 'string' ? m : '' }
    }
    return { code: 'InfoError', message: 'the service reported an error without a code' }
  }

  private validate(def: Def, raw: unknown): unknown {
    const r = v.safeParse(def.response, raw)
    if (r.success) return r.output
    const { message, path } = firstIssue(r.issues)
    throw new InfoError('InfoMalformedResponse', `${def.type}: unexpected response${path ? ` at ${path}` : ''}: ${message}`, {
      infoType: def.type,
      path,
    })
  }

  // ---- one typed call per /info type ------------------------------------------------------

  assets(o?: CallOptions) {
    return this.call(T.assets, {}, o)
  }
  queryStatus(o?: CallOptions) {
    return this.call(T.queryStatus, {}, o)
  }
  quoteAssets(o?: CallOptions) {
    return this.call(T.quoteAssets, {}, o)
  }
  accountingWithdrawTokens(o?: CallOptions) {
    return this.call(T.accountingWithdrawTokens, {}, o)
  }
  accountingDepositContracts(o?: CallOptions) {
    return this.call(T.accountingDepositContracts, {}, o)
  }
  multisigPolicy(p: InfoParams<typeof T.multisigPolicy>, o?: CallOptions) {
    return this.call(T.multisigPolicy, p, o)
  }
  markets(o?: CallOptions) {
    return this.call(T.markets, {}, o)
  }
  l2Book(p: InfoParams<typeof T.l2Book>, o?: CallOptions) {
    return this.call(T.l2Book, p, o)
  }
  withdraws(p: InfoParams<typeof T.withdraws>, o?: CallOptions) {
    return this.call(T.withdraws, p, o)
  }
  deposits(p: InfoParams<typeof T.deposits>, o?: CallOptions) {
    return this.call(T.deposits, p, o)
  }
  userBalances(p: InfoParams<typeof T.userBalances>, o?: CallOptions) {
    return this.call(T.userBalances, p, o)
  }
  accountStatus(p: InfoParams<typeof T.accountStatus>, o?: CallOptions) {
    return this.call(T.accountStatus, p, o)
  }
  spotCreditAccount(p: InfoParams<typeof T.spotCreditAccount>, o?: CallOptions) {
    return this.call(T.spotCreditAccount, p, o)
  }
  spotCreditPositions(p: InfoParams<typeof T.spotCreditPositions>, o?: CallOptions) {
    return this.call(T.spotCreditPositions, p, o)
  }
  oracleStatus(o?: CallOptions) {
    return this.call(T.oracleStatus, {}, o)
  }
  markPrices(p: InfoParams<typeof T.markPrices> = {}, o?: CallOptions) {
    return this.call(T.markPrices, p, o)
  }
  openOrders(p: InfoParams<typeof T.openOrders>, o?: CallOptions) {
    return this.call(T.openOrders, p, o)
  }
  userAgents(p: InfoParams<typeof T.userAgents>, o?: CallOptions) {
    return this.call(T.userAgents, p, o)
  }
  userFills(p: InfoParams<typeof T.userFills>, o?: CallOptions) {
    return this.call(T.userFills, p, o)
  }
  userFillsByTime(p: InfoParams<typeof T.userFillsByTime>, o?: CallOptions) {
    return this.call(T.userFillsByTime, p, o)
  }
  orderStatus(p: InfoParams<typeof T.orderStatus>, o?: CallOptions) {
    return this.call(T.orderStatus, p, o)
  }
  txStatusByCloid(p: InfoParams<typeof T.txStatusByCloid>, o?: CallOptions) {
    return this.call(T.txStatusByCloid, p, o)
  }

  /**
   * Every fill of `user` from `startTimeMs` on, paging `userFillsByTime` to the end (the start
   * bound is inclusive, so the last fill of a page repeats and is deduplicated on `tid`). A page
   * of 1000 fills that all share one millisecond cannot be paged past by time: paging moves on
   * to the next millisecond (so no later fill is lost) and reports that millisecond as a gap,
   * since fills beyond the first 1000 in it cannot be read. The result is the list of fills
   * with `gaps` attached (empty when nothing is missing).
   */
  async allFillsSince(user: string, startTimeMs: number, o?: CallOptions): Promise<FillList> {
    const out: T.Fill[] = []
    const gaps: FillGap[] = []
    const seen = new Set<bigint>()
    let start = startTimeMs
    for (let page = 0; page < 10_000; page++) {
      const { fills } = await this.userFillsByTime({ user, start_time_ms: start }, o)
      let added = 0
      for (const f of fills) {
        if (seen.has(f.tid)) continue
        seen.add(f.tid)
        out.push(f)
        added++
      }
      const last = fills[fills.length - 1]
      if (fills.length < FILLS_PAGE || !last) return Object.assign(out, { gaps })
      if (last.time === start || added === 0) {
        // Stuck inside one millisecond: move past it and say what may be missing there.
        gaps.push({ kind: 'sameMillisecondOverflow', timeMs: last.time, seen: fills.filter((f) => f.time === last.time).length })
        start = last.time + 1
        continue
      }
      start = last.time
    }
    throw new DeskError('FillsPagingRunaway', 'fills paging did not reach the end after 10000 pages')
  }
}

/** userFillsByTime's page size (spec §8). */
export const FILLS_PAGE = 1000

/**
 * Fills paging could not read: `sameMillisecondOverflow` means at least `seen` fills share
 * `timeMs` and any beyond the first page of them are not readable by time; reconcile that
 * millisecond by other means (userFills by height, the userFills stream) if it matters.
 */
export type FillGap = { kind: 'sameMillisecondOverflow'; timeMs: number; seen: number }

/** The fills, with the gaps paging could not close. */
export type FillList = T.Fill[] & { gaps: FillGap[] }

export type { Fill, Asset, Market, MarkPrice, CreditPosition, OpenOrder, AgentSlot, UserBalance } from './types/exports'
