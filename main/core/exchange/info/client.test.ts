import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest'
import { RateScheduler } from '../scheduler'
import { InfoClient } from './client'
import * as T from './types'

type Handler = (body: Record<string, unknown>, raw: string) => { status?: number; text: string }
let handler: Handler
let seen: Record<string, unknown>[] = []
let server: Server
let baseUrl: string

beforeAll(async () => {
  server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = []
    req.on('data', (c: Buffer) => chunks.push(c))
    req.on('end', () => {
      const raw = Buffer.concat(chunks).toString('utf8')
      const body = JSON.parse(raw) as Record<string, unknown>
      seen.push(body)
      const out = handler(body, raw)
      res.writeHead(out.status ?? 200, { 'content-type': 'application/json' })
      res.end(out.text)
    })
  })
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r))
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
})
afterAll(async () => {
  await new Promise((r) => server.close(r))
})
beforeEach(() => {
  seen = []
})

const USER = '0x00000000000000000000000000000000000000aa'
const client = () => new InfoClient({ baseUrl, scheduler: new RateScheduler({ ratePerSec: 1000 }) })

describe('InfoClient', () => {
  it('the same read asked again while one waits for the budget shares its answer; one asked after it started gets its own', async () => {
    handler = () => ({ text: '{"agents":[{"slot_id":0,"agent":null,"epoch":null}]}' })
    const scheduler = new RateScheduler({ ratePerSec: 1000, burst: 1 })
    const c = new InfoClient({ baseUrl, scheduler })
    // One slow read holds the only token, so the next ones queue behind it.
    let release!: () => void
    const hold = scheduler.run('operator', () => new Promise<void>((r) => (release = r)))
    const a = c.userAgents({ user: USER }, { lane: 'operator' })
    const b = c.userAgents({ user: USER }, { lane: 'operator' })
    const other = c.userAgents({ user: USER.replace('aa', 'bb') }, { lane: 'operator' })
    const inWriteLane = c.userAgents({ user: USER }, { lane: 'write' })
    await new Promise((r) => setImmediate(r))
    release()
    await hold
    const [ra, rb] = await Promise.all([a, b, other, inWriteLane])
    expect(ra).toEqual(rb)
    expect(ra).not.toBe(rb)
    expect(seen.map((x) => [x.type, x.user])).toEqual([
      ['userAgents', USER],
      ['userAgents', USER],
      ['userAgents', USER.replace('aa', 'bb')],
    ])
    await c.userAgents({ user: USER }, { lane: 'operator' })
    expect(seen).toHaveLength(4)
  })

  it('has one typed call per /info type of the spec', () => {
    const c = client() as unknown as Record<string, unknown>
    const types = (Object.values(T) as unknown[])
      .filter((d): d is { type: string } => typeof d === 'object' && d !== null && 'type' in d)
      .map((d) => d.type)
    expect(types).toHaveLength(22)
    for (const t of types) expect(typeof c[t]).toBe('function')
  })

  it('parses tids, oids and heights above 2^53 exactly', async () => {
    handler = () => ({
      text: '{"fills":[{"tid":18446744073709551615,"time":1700000000000,"side":"B","fee_asset_id":1,"fee":"0.01","fee_mode":"balance","oid":9007199254740993,"block_height":"12345678901234567890"}],"limit":10,"requested_limit":10,"max_limit":500}',
    })
    const r = await client().userFills({ user: USER, from_height: 1n, to_height: 100n, limit: 10 })
    expect(r.fills[0]!.tid).toBe(18446744073709551615n)
    expect(r.fills[0]!.oid).toBe(9007199254740993n)
    expect(r.fills[0]!.block_height).toBe(12345678901234567890n)
    // bigint parameters go out as decimal strings, never through a JS number
    expect(seen[0]).toEqual({ type: 'userFills', user: USER, from_height: '1', to_height: '100', limit: 10 })
  })

  it('waits out RateLimited with the stated delay, then answers', async () => {
    let n = 0
    handler = () =>
      n++ === 0
        ? { status: 429, text: '{"error":{"code":"RateLimited","message":"Rate limited, retry after 30ms"}}' }
        : { text: '{"agents":[{"slot_id":0,"agent":null,"epoch":null}]}' }
    const sched = new RateScheduler({ ratePerSec: 1000 })
    const pause = vi.spyOn(sched, 'pauseFor')
    const c = new InfoClient({ baseUrl, scheduler: sched })
    const r = await c.userAgents({ user: USER }, { lane: 'operator' })
    expect(r.agents).toEqual([{ slot_id: 0, agent: null, epoch: null }])
    expect(pause).toHaveBeenCalledWith(30)
    expect(seen).toHaveLength(2)
  })

  it('gives up after repeated RateLimited answers with a typed error carrying the delay', async () => {
    handler = () => ({ status: 429, text: '{"error":{"code":"RateLimited","message":"retry after 1ms"}}' })
    const c = new InfoClient({ baseUrl, scheduler: new RateScheduler({ ratePerSec: 1000 }), rateLimitRetries: 2 })
    await expect(c.markets()).rejects.toMatchObject({ code: 'RateLimited', details: { retryAfterMs: 1, httpStatus: 429 } })
    expect(seen).toHaveLength(3)
  })

  it('raises an in-band error at HTTP 200 instead of returning the empty list', async () => {
    handler = () => ({ text: '{"error":{"code":"HistoryWindowExceeded","message":"range wider than 10000 blocks"},"fills":[]}' })
    await expect(client().userFills({ user: USER, from_height: 1, to_height: 20000, limit: 5 })).rejects.toMatchObject({
      code: 'HistoryWindowExceeded',
      details: { inBand: true },
    })
  })

  it('maps HTTP 400 error bodies to their code', async () => {
    handler = () => ({ status: 400, text: '{"error":{"code":"InvalidOrderStatusQuery","message":"need oid"}}' })
    await expect(client().orderStatus({ oid: 5n })).rejects.toMatchObject({ code: 'InvalidOrderStatusQuery', details: { httpStatus: 400 } })
    expect(seen).toHaveLength(1)
  })

  it('reports a surprising response as InfoMalformedResponse with the path', async () => {
    handler = () => ({ text: '{"found":true,"status":"frozen","account_index":"-3"}' })
    await expect(client().accountStatus({ user: USER })).rejects.toMatchObject({
      code: 'InfoMalformedResponse',
      details: { path: 'account_index' },
    })
    handler = () => ({ text: '{"markets":[{"market_id":1}]}' })
    await expect(client().markets()).rejects.toMatchObject({ code: 'InfoMalformedResponse' })
    handler = () => ({ text: 'not json' })
    await expect(client().oracleStatus()).rejects.toMatchObject({ code: 'InfoMalformedResponse' })
  })

  it('refuses a number that already lost precision', async () => {
    handler = () => ({ text: '{"found":true,"status":"active","account_index":1e300}' })
    await expect(client().accountStatus({ user: USER })).rejects.toMatchObject({ code: 'InfoMalformedResponse' })
  })

  it('refuses bodies above 64 KiB and bad parameters before sending', async () => {
    handler = () => ({ text: '[]' })
    const ids = Array.from({ length: 20_000 }, (_, i) => i + 100_000)
    await expect(client().markPrices({ asset_ids: ids })).rejects.toMatchObject({ code: 'InfoRequestTooLarge' })
    await expect(client().userBalances({ user: 'alice' })).rejects.toMatchObject({ code: 'InfoInvalidParams' })
    expect(seen).toHaveLength(0)
  })

  it('retries a 5xx read and then answers', async () => {
    let n = 0
    handler = () =>
      n++ === 0 ? { status: 502, text: 'bad gateway' } : { text: '{"oracle_status":{"status":"unavailable","reason_code":"StalePrice"}}' }
    const r = await client().oracleStatus()
    expect(r.oracle_status).toEqual({ status: 'unavailable', reason_code: 'StalePrice' })
  })

  it('reports an unreachable host as InfoUnreachable', async () => {
    const c = new InfoClient({ baseUrl: 'http://127.0.0.1:1', scheduler: new RateScheduler({ ratePerSec: 1000 }), transientRetries: 0 })
    await expect(c.markets()).rejects.toMatchObject({ code: 'InfoUnreachable' })
  })

  it('reads listings whose envelope key the spec leaves open', async () => {
    handler = () => ({ text: '{"marks":[{"asset_id":1,"usd_atoms":"6500000000000","source_ts_ms":1700000000000}]}' })
    expect(await client().markPrices()).toEqual([{ asset_id: 1, usd_atoms: 6500000000000n, source_ts_ms: 1700000000000 }])
    handler = () => ({ text: '[{"asset_id":2,"available":"1.5","locked":"0"}]' })
    expect(await client().userBalances({ user: USER })).toEqual([{ asset_id: 2, available: '1.5', locked: '0' }])
  })

  it('pages userFillsByTime to the end, deduplicating the repeated boundary fill', async () => {
    const fill = (tid: number, time: number) => ({ tid, time, side: 'A', fee_asset_id: null, fee: '0', fee_mode: null })
    handler = (b) => {
      const start = b.start_time_ms as number
      const page = Array.from({ length: 1000 }, (_, i) => fill(start * 10 + i, start + Math.floor(i / 500)))
      return { text: JSON.stringify({ fills: start >= 3 ? page.slice(0, 3) : page }) }
    }
    const all = await client().allFillsSince(USER, 1)
    expect(new Set(all.map((f) => f.tid)).size).toBe(all.length)
    expect(seen.map((s) => s.start_time_ms)).toEqual([1, 2, 3])
  })

  it('never loses fills when 1000 or more share one millisecond: moves on and reports the gap', async () => {
    // 1500 fills at ms 5 (tids 0..1499), then one fill at each of ms 6..9.
    const all = [
      ...Array.from({ length: 1500 }, (_, i) => ({ tid: i, time: 5 })),
      ...[6, 7, 8, 9].map((t) => ({ tid: 10_000 + t, time: t })),
    ].map((f) => ({
      ...f,
      side: 'B',
      fee_asset_id: null,
      fee: null,
      fee_mode: null,
    }))
    handler = (b) => ({ text: JSON.stringify({ fills: all.filter((f) => f.time >= (b.start_time_ms as number)).slice(0, 1000) }) })
    const got = await client().allFillsSince(USER, 0)
    // The four later fills are all there; the overflowing millisecond is reported, typed.
    expect(got.filter((f) => f.time > 5).map((f) => f.tid)).toEqual([10_006n, 10_007n, 10_008n, 10_009n])
    expect(got.filter((f) => f.time === 5)).toHaveLength(1000)
    expect(got.gaps).toEqual([{ kind: 'sameMillisecondOverflow', timeMs: 5, seen: 1000 }])
    // Null fee fields (a no-fee fill before fee activation) are read, not refused.
    expect(got[0]).toMatchObject({ fee: null, fee_asset_id: null, fee_mode: null })
  })

  it('reads a withdraws record whose amount is display (decimal) and whose atoms are in amount_atoms', async () => {
    handler = () => ({
      text: JSON.stringify({
        withdraws: [
          {
            asset_id: 1,
            amount: '10.5',
            amount_atoms: '1050000000',
            withdraw_nonce: '17',
            withdraw_fee_atoms: '100000',
            vault_address: null,
            block_height: 9,
          },
        ],
      }),
    })
    expect(await client().withdraws({ user: USER })).toEqual([
      expect.objectContaining({ amount: '10.5', amount_atoms: 1050000000n, withdraw_nonce: 17n, withdraw_fee_atoms: 100000n }),
    ])
  })
})
