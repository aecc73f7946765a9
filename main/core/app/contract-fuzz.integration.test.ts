/**
 * Fuzz of the whole contract (seeded, reproducible): every channel is called with generated
 * invalid arguments through the real core over a sandbox. Every answer must be a typed result
 * (`{ ok: false, error: { code, message } }` unless the arguments happened to be valid), no
 * call may hang, the core keeps serving, and no private key or passphrase appears in any
 * answer, pushed event, log line or file under the data directory.
 */
import { readFileSync } from 'node:fs'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { channels } from '../../contract/channels'
import { FUZZ_SEED, fuzzArgs, filesUnder, rng, secretsOf } from '../../testing/fuzz'
import { demoAccounts, startDeskOnSandbox, TEST_PASSPHRASE, type DeskOnSandbox } from '../../testing/desk-on-sandbox'

const SEED = FUZZ_SEED
const CALLS_PER_CHANNEL = Number(process.env.FUZZ_CALLS ?? 60)

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
        const a = fuzzArgs(r)
        const res = await Promise.race([
          d.core.dispatch(channel, a, { host: 'test' }),
          new Promise<'hang'>((resolve) => setTimeout(() => resolve('hang'), 10_000)),
        ])
        calls++
        if (res === 'hang') throw new Error(`${channel} did not answer within 10 s`)
        const text = JSON.stringify(res, (_k, v: unknown) => (typeof v === 'bigint' ? v.toString() : v))
        answers.push(text)
        const typed =
          res.ok ||
          (typeof res.error.code === 'string' &&
            /^[A-Z][A-Za-z0-9]+$/.test(res.error.code) &&
            typeof res.error.message === 'string' &&
            res.error.message.length > 0)
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

    const secrets = secretsOf(
      demoAccounts.map((a) => a.privateKey),
      [TEST_PASSPHRASE],
    )
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
