import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import WebSocket from 'ws'
import { channelNames } from '../../contract/channels'
import { createDispatcher, type HandlerTable } from '../../core/ipc/dispatch'
import { EventHub } from '../../core/ipc/events'
import { ScreenLeases, screenHandlers } from '../../core/features/screen'
import { startWebHost, type WebHost } from './server'

const A = '0x' + 'aa'.repeat(20)
const B = '0x' + 'bb'.repeat(20)

function open(host: WebHost): Promise<WebSocket> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(`ws://127.0.0.1:${host.port}/bridge?token=${host.token}`, { origin: host.origin })
    ws.once('open', () => resolve(ws))
    ws.once('error', reject)
  })
}

let nextId = 1
function call(ws: WebSocket, channel: string, args: unknown): Promise<{ ok: boolean; value?: unknown }> {
  const id = nextId++
  return new Promise((resolve) => {
    const on = (d: WebSocket.RawData) => {
      const msg = JSON.parse(d.toString()) as { id: number; result: { ok: boolean; value?: unknown } }
      if (msg.id !== id) return
      ws.off('message', on)
      resolve(msg.result)
    }
    ws.on('message', on)
    ws.send(JSON.stringify({ id, channel, args }))
  })
}

/** Each socket is a sender: its screen leases end when it closes (a reload, a dropped connection). */
describe('web host: screen leases per socket', () => {
  let dir: string
  let host: WebHost
  const leases = new ScreenLeases({ now: () => Date.now() })
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'desk-web-leases-'))
    writeFileSync(join(dir, 'index.html'), '<!doctype html><title>t</title>')
    const table = Object.fromEntries(channelNames.map((n) => [n, () => Promise.reject(new Error('not in this test'))]))
    Object.assign(table, screenHandlers({ leases }))
    const core = {
      dispatch: createDispatcher(table as unknown as HandlerTable),
      events: new EventHub(),
      touch: () => {},
      senderGone: (s: string) => leases.senderGone(s),
    }
    host = await startWebHost({ core, rendererRoot: dir, log: () => {} })
  })
  afterAll(async () => {
    leases.close()
    await host.close()
    rmSync(dir, { recursive: true, force: true })
  })

  it("a closed socket's leases end; another socket's stay, and it cannot release the first one's", async () => {
    const one = await open(host)
    const two = await open(host)
    const r1 = await call(one, 'screen.watch', { target: { kind: 'account', address: A } })
    await call(two, 'screen.watch', { target: { kind: 'account', address: B } })
    expect(leases.accounts().sort()).toEqual([A, B])
    const { leaseId } = r1.value as { leaseId: string }
    expect(await call(two, 'screen.release', { leaseId })).toEqual({ ok: true, value: { released: false } })
    const closed = new Promise((r) => one.once('close', r))
    one.close()
    await closed
    // The server sees the close after the client does.
    await vi.waitFor(() => expect(leases.accounts()).toEqual([B]))
    two.close()
  })
})
