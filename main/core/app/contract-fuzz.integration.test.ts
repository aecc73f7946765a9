/**
 * Fuzz of the whole contract (seeded, reproducible): every channel is called with generated
 * invalid arguments through the real core over a sandbox. Every answer must be a typed result
 * (`{ ok: false, error: { code, message } }` unless the arguments happened to be valid), no
 * call may hang, the core keeps serving, and no private key or passphrase appears in any
 * answer, pushed event, log line or file under the data directory.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { channels } from '../../contract/channels'
import { demoAccounts, startDeskOnSandbox, TEST_PASSPHRASE, type DeskOnSandbox } from '../../testing/desk-on-sandbox'

const SEED = Number(process.env.FUZZ_SEED ?? 20261123)
const CALLS_PER_CHANNEL = Number(process.env.FUZZ_CALLS ?? 60)

/** mulberry32: small, seeded, good enough to pick mutations reproducibly. */
function rng(seed: number): () => number {
  let a = seed >>> 0
  return () => {
    a = (a + 0x6d2b79f5) >>> 0
    let t = a
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

const FIELDS = ['address', 'owner', 'account', 'from', 'to', 'cashAccount', 'creditAccount', 'assetId', 'amount', 'price', 'quantity', 'slot', 'passphrase', 'name', 'label', 'url', 'cloid', 'oid', 'marketId', 'operationId', 'format', 'kind', 'side', 'id', 'approved', 'path']

function value(r: () => number, depth = 0): unknown {
  const pick = Math.floor(r() * 22)
  switch (pick) {
    case 0: return undefined
    case 1: return null
    case 2: return NaN
    case 3: return -1
    case 4: return Number.MAX_SAFE_INTEGER + 2
    case 5: return 'x'.repeat(100_000)
    case 6: return '-1.5'
    case 7: return '0.123456789012345678901234567890'
    case 8: return '1e9'
    case 9: return '0x52908400098527886E0F7030069857D2E4169EE7' // bad EIP-55 checksum
    case 10: return '0x0000000000000000000000000000000000000000'
    case 11: return '0x000000000000000000000000000000000000dEaD'
    case 12: return 'javascript:alert(1)'
    case 13: return 'http://evil.example/'
    case 14: return '../../../../etc/passwd'
    case 15: return true
    case 16: return []
    case 17: return { __proto__: { polluted: true }, constructor: { prototype: { polluted: true } } }
    case 18: return '\u0000\ud800'
    case 19: return depth < 2 ? object(r, depth + 1) : {}
    case 20: return Infinity
    default: return String(Math.floor(r() * 1e6))
  }
}

function object(r: () => number, depth = 0): Record<string, unknown> {
  const o: Record<string, unknown> = JSON.parse('{"__proto__": {"polluted": true}}') as Record<string, unknown>
  const n = Math.floor(r() * 5)
  for (let i = 0; i < n; i++) o[FIELDS[Math.floor(r() * FIELDS.length)]!] = value(r, depth)
  return o
}

function args(r: () => number): unknown {
  return r() < 0.8 ? object(r) : value(r)
}

function secretsOf(keys: readonly string[]): string[] {
  const out: string[] = [TEST_PASSPHRASE]
  for (const k of keys) {
    const hex = k.replace(/^0x/, '').toLowerCase()
    out.push(hex, Buffer.from(hex, 'hex').toString('base64'))
  }
  return out
}

function filesUnder(dir: string): string[] {
  const out: string[] = []
  for (const name of readdirSync(dir)) {
    const p = join(dir, name)
    if (statSync(p).isDirectory()) out.push(...filesUnder(p))
    else out.push(p)
  }
  return out
}

let d: DeskOnSandbox
const events: string[] = []
const logs: string[] = []

beforeAll(async () => {
  for (const m of ['log', 'warn', 'error', 'info'] as const) {
    vi.spyOn(console, m).mockImplementation((...a: unknown[]) => void logs.push(a.map(String).join(' ')))
  }
  d = await startDeskOnSandbox()
  d.core.events.subscribe((event, payload) => void events.push(`${event} ${JSON.stringify(payload)}`))
  await d.call('vault.create', { passphrase: TEST_PASSPHRASE })
  await d.call('accounts.importSandboxKeys')
}, 120_000)

afterAll(async () => {
  await d?.close()
  vi.restoreAllMocks()
})

describe('contract fuzz', () => {
  it(`answers ${Object.keys(channels).length} channels x ${CALLS_PER_CHANNEL} generated calls with typed results, leaks nothing (seed ${SEED})`, async () => {
    const r = rng(SEED)
    const answers: string[] = []
    const untyped: string[] = []
    let calls = 0
    for (const channel of Object.keys(channels)) {
      for (let i = 0; i < CALLS_PER_CHANNEL; i++) {
        const a = args(r)
        const res = await Promise.race([
          d.core.dispatch(channel, a, { host: 'test' }),
          new Promise<'hang'>((resolve) => setTimeout(() => resolve('hang'), 10_000)),
        ])
        calls++
        if (res === 'hang') throw new Error(`${channel} did not answer within 10 s`)
        const text = JSON.stringify(res, (_k, v: unknown) => (typeof v === 'bigint' ? v.toString() : v))
        answers.push(text)
        const typed = res.ok || (typeof res.error.code === 'string' && /^[A-Z][A-Za-z0-9]+$/.test(res.error.code) && typeof res.error.message === 'string' && res.error.message.length > 0)
        if (!typed) untyped.push(`${channel}: ${text.slice(0, 200)}`)
      }
    }
    expect(untyped).toEqual([])
    expect(calls).toBe(Object.keys(channels).length * CALLS_PER_CHANNEL)
    // No prototype pollution reached the process.
    expect(({} as Record<string, unknown>).polluted).toBeUndefined()
    // Still serving.
    const state = await d.core.dispatch('app.state', undefined, { host: 'test' })
    expect(state.ok).toBe(true)

    const secrets = secretsOf(demoAccounts.map((a) => a.privateKey))
    const haystacks: [string, string][] = [
      ['answers', answers.join('\n').toLowerCase()],
      ['events', events.join('\n').toLowerCase()],
      ['logs', logs.join('\n').toLowerCase()],
      ...filesUnder(d.dataDir).map((f): [string, string] => [f, readFileSync(f).toString('latin1').toLowerCase()]),
    ]
    for (const [where, text] of haystacks) {
      for (const s of secrets) expect(text.includes(s.toLowerCase()), `a secret appears in ${where}`).toBe(false)
    }
  }, 120_000)
})
