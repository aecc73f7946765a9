/**
 * Fuzz of the web host over the real core (seeded): generated calls of every channel, malformed
 * bridge messages, an oversized frame and foreign senders, all on the live host. Every answer
 * is typed, nothing hangs, the host keeps serving other sessions, and no key or passphrase
 * appears in any bridge message, event, log line or data file.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import WebSocket from 'ws'
import { channels } from '../../contract/channels'
import { FUZZ_SEED, filesUnder, fuzzArgs, rng, secretsOf } from '../../testing/fuzz'
import { demoAccounts, startDeskOnSandbox, TEST_PASSPHRASE, type DeskOnSandbox } from '../../testing/desk-on-sandbox'
import { startWebHost, type WebHost } from './server'

const CALLS_PER_CHANNEL = 20
const TYPED_CODE = /^[A-Z][A-Za-z0-9]+$/

let d: DeskOnSandbox
let host: WebHost
let root: string
const wire: string[] = []
const logs: string[] = []

interface Answer {
  id: number | null
  result: { ok: boolean; error?: { code: string; message: string } }
}

function connect(origin = host.origin, token = host.token): Promise<WebSocket> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(`ws://127.0.0.1:${host.port}/bridge?token=${token}`, { origin })
    ws.once('open', () => resolve(ws))
    ws.once('error', reject)
    ws.once('unexpected-response', (_req, res) => reject(new Error(`HTTP ${res.statusCode}`)))
  })
}

/** Sends one text frame and waits for the answer carrying `id` (or the id-less error answer). */
function ask(ws: WebSocket, text: string, id: number | null): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no answer within 10 s to ${text.slice(0, 80)}`)), 10_000)
    const onMessage = (data: WebSocket.RawData) => {
      const msg = JSON.parse(data.toString()) as Answer & { event?: string }
      if (msg.event !== undefined || msg.id !== id) return
      clearTimeout(timer)
      ws.off('message', onMessage)
      resolve(msg)
    }
    ws.on('message', onMessage)
    ws.send(text)
  })
}

beforeAll(async () => {
  d = await startDeskOnSandbox()
  await d.call('vault.create', { passphrase: TEST_PASSPHRASE })
  await d.call('accounts.importSandboxKeys')
  root = mkdtempSync(join(tmpdir(), 'desk-web-fuzz-'))
  writeFileSync(join(root, 'index.html'), '<!doctype html><title>desk</title>')
  host = await startWebHost({
    core: d.core,
    rendererRoot: root,
    tap: (_dir, text) => void wire.push(text),
    log: (line) => void logs.push(line),
    limits: { framesPerSecond: 100_000, frameBurst: 100_000 },
  })
}, 120_000)

afterAll(async () => {
  await host?.close()
  await d?.close()
  if (root) rmSync(root, { recursive: true, force: true })
})

describe('web host fuzz', () => {
  it(`answers generated calls of every channel and malformed messages with typed errors (seed ${FUZZ_SEED})`, async () => {
    const ws = await connect()
    const r = rng(FUZZ_SEED + 1)
    let id = 1
    const untyped: string[] = []
    const check = (a: Answer, what: string) => {
      if (!a.result.ok && !(TYPED_CODE.test(a.result.error?.code ?? '') && (a.result.error?.message ?? '') !== ''))
        untyped.push(`${what}: ${JSON.stringify(a).slice(0, 200)}`)
    }
    for (const channel of Object.keys(channels)) {
      for (let i = 0; i < CALLS_PER_CHANNEL; i++) {
        const n = id++
        check(await ask(ws, JSON.stringify({ id: n, channel, args: fuzzArgs(r) }), n), channel)
      }
    }
    // Malformed bridge messages: not JSON, no id, a non-numeric id, an unknown channel, a prototype key.
    for (const text of ['{', 'null', '[]', '{"channel":"app.state"}', '{"id":"x","channel":"app.state"}', '{"__proto__":{"id":1}}']) {
      check(await ask(ws, text, null), text)
    }
    check(await ask(ws, JSON.stringify({ id, channel: 'constructor', args: {} }), id), 'constructor')
    expect(untyped).toEqual([])
    ws.close()
  }, 120_000)

  it('closes a socket that sends a 1 MB frame (1009) and keeps serving every other session', async () => {
    const victim = await connect()
    const bystander = await connect()
    const closed = new Promise<number>((resolve) => victim.once('close', (code) => resolve(code)))
    victim.send('x'.repeat(1024 * 1024))
    expect(await closed).toBe(1009)
    const a = await ask(bystander, JSON.stringify({ id: 7, channel: 'app.state' }), 7)
    expect(a.result.ok).toBe(true)
    bystander.close()
  })

  it('refuses foreign senders: wrong token, token prefix, foreign or null origin', async () => {
    await expect(connect(host.origin, 'nope')).rejects.toThrow(/403/)
    await expect(connect(host.origin, host.token.slice(0, 16))).rejects.toThrow(/403/)
    await expect(connect('http://evil.example')).rejects.toThrow(/403/)
    await expect(connect('null')).rejects.toThrow(/403/)
    const still = await connect()
    expect((await ask(still, JSON.stringify({ id: 1, channel: 'app.state' }), 1)).result.ok).toBe(true)
    still.close()
  })

  it('no key or passphrase in bridge messages, log lines or data files', () => {
    const secrets = secretsOf(
      demoAccounts.map((a) => a.privateKey),
      [TEST_PASSPHRASE],
    )
    // The passphrase went in (vault.create was called through the core, not the bridge); it must never come out.
    const outbound = wire.join('\n').toLowerCase()
    const haystacks: [string, string][] = [
      ['bridge messages', outbound],
      ['logs', logs.join('\n').toLowerCase()],
      ...filesUnder(d.dataDir).map((f): [string, string] => [f, readFileSync(f).toString('latin1').toLowerCase()]),
    ]
    for (const [where, text] of haystacks)
      for (const s of secrets) expect(text.includes(s.toLowerCase()), `a secret appears in ${where}`).toBe(false)
    expect(wire.length).toBeGreaterThan(Object.keys(channels).length * CALLS_PER_CHANNEL)
  })
})
