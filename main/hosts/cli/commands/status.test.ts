/**
 * `desk status` with no app running and no service listening: it still says how desk reaches the
 * core and which network it tried, tells how to start the sandbox, and exits 1.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { createServer } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { devOwner } from '../../../../sandbox/scenario/dev-keys'
import { capturedIo } from '../testing/captured-io'
import { runCli } from '../router'
import networks from './networks'
import status from './status'

let dataDir: string
let closed: string

async function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const p = (s.address() as { port: number }).port
      s.close(() => resolve(p))
    })
  })
}

async function desk(...args: string[]): Promise<{ code: number; out: string; err: string }> {
  const { io, out, err } = capturedIo()
  const code = await runCli([...args, '--data-dir', dataDir], [networks, status], io)
  return { code, out: out(), err: err() }
}

beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'desk-status-'))
  // The sandbox network on ports nothing listens on (the default port may be in use by a running app).
  const [trading, earn] = [await freePort(), await freePort()]
  closed = `http://127.0.0.1:${trading}`
  const set = await desk(
    'networks',
    'set',
    'sandbox',
    '--trading-url',
    closed,
    '--ws-url',
    `ws://127.0.0.1:${trading}/ws`,
    '--earn-url',
    `http://127.0.0.1:${earn}`,
  )
  expect(set.code).toBe(0)
})
afterAll(() => rmSync(dataDir, { recursive: true, force: true }))

describe('desk status without a reachable service', () => {
  it('names the mode and the network, says how to start the sandbox, and exits 1', async () => {
    const r = await desk('status')
    expect(r.code).toBe(1)
    const lines = r.out.trimEnd().split('\n')
    expect(lines[0]).toBe(`mode standalone (pid ${process.pid} holds the data directory)`)
    expect(lines[1]).toBe(`network sandbox: the trading service at ${closed} cannot be reached`)
    expect(lines[2]).toMatch(/`npm run sandbox`.*`npm start`.*`npm run web`/)
    expect(r.err).toMatch(/^desk: .*could not be reached.* \[InfoUnreachable\]$/m)
  })

  it('--json: one document, the same facts as fields of the error', async () => {
    const r = await desk('status', '--json')
    expect(r.code).toBe(1)
    const j = JSON.parse(r.out) as { error: { code: string; details: Record<string, unknown> } }
    expect(j.error.code).toBe('InfoUnreachable')
    expect(j.error.details).toMatchObject({
      mode: 'standalone',
      pid: process.pid,
      network: 'sandbox',
      tradingUrl: closed,
      reachable: false,
    })
    expect(j.error.details.hint).toMatch(/npm run sandbox/)
  })

  it('status credit explains the same way', async () => {
    const r = await desk('status', 'credit', devOwner(4).address)
    expect(r.code).toBe(1)
    expect(r.out).toMatch(/^mode standalone .*\nnetwork sandbox: .*cannot be reached\n.*npm run sandbox/)
  })

  it('a network other than the sandbox points at its URLs instead', async () => {
    expect(
      (
        await desk(
          'networks',
          'set',
          'lab',
          '--chain-id',
          '31337',
          '--trading-url',
          closed,
          '--ws-url',
          closed.replace('http', 'ws') + '/ws',
          '--earn-url',
          closed,
        )
      ).code,
    ).toBe(0)
    expect((await desk('networks', 'select', 'lab')).code).toBe(0)
    const r = await desk('status')
    expect(r.code).toBe(1)
    expect(r.out).toMatch(/^network lab: the trading service at .* cannot be reached\ncheck the network's URLs with `desk networks list`/m)
    expect(r.out).not.toMatch(/npm run sandbox/)
  })
})
