import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import WebSocket from 'ws'
import { EventHub } from '../../core/ipc/events'
import { createDispatcher, type HandlerTable } from '../../core/ipc/dispatch'
import { channelNames } from '../../contract/channels'
import { startWebHost, type WebHost } from './server'

/** A handler table where app.state answers and every other channel fails as a handler would. */
function handlers(): HandlerTable {
  const table = Object.fromEntries(
    channelNames.map((n) => [n, () => Promise.reject(new Error('not in this test'))]),
  ) as unknown as HandlerTable
  ;(table as unknown as Record<string, unknown>)['app.state'] = () => ({ version: 't', host: 'web' })
  return table
}

function open(host: WebHost): Promise<WebSocket> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(`ws://127.0.0.1:${host.port}/bridge?token=${host.token}`, { origin: host.origin })
    ws.once('open', () => resolve(ws))
    ws.once('error', reject)
  })
}

function ask(ws: WebSocket, text: string): Promise<{ id: number | null; result: { ok: boolean; error?: { code: string } } }> {
  return new Promise((resolve) => {
    ws.once('message', (d) => resolve(JSON.parse(d.toString())))
    ws.send(text)
  })
}

describe('web host bridge', () => {
  let dir: string
  let host: WebHost
  const events = new EventHub()
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'desk-web-'))
    writeFileSync(join(dir, 'index.html'), '<!doctype html><title>t</title>')
    mkdirSync(join(dir, 'assets'))
    writeFileSync(join(dir, 'assets', 'start-VLKS8ChG.js'), 'export {}')
    writeFileSync(join(dir, 'assets', 'notes.js'), 'export {}')
    host = await startWebHost({ core: { dispatch: createDispatcher(handlers()), events, touch: () => {} }, rendererRoot: dir })
  })
  afterAll(async () => {
    await host.close()
    rmSync(dir, { recursive: true, force: true })
  })

  it('answers bad messages with typed errors and keeps serving', async () => {
    const ws = await open(host)
    expect((await ask(ws, 'not json')).result.error?.code).toBe('InvalidMessage')
    expect((await ask(ws, JSON.stringify({ channel: 'app.state' }))).result.error?.code).toBe('InvalidMessage')
    expect((await ask(ws, JSON.stringify({ id: 1, channel: 'keys.export' }))).result.error?.code).toBe('UnknownChannel')
    expect((await ask(ws, JSON.stringify({ id: 2, channel: 'vault.unlock', args: { passphrase: 1 } }))).result.error?.code).toBe(
      'InvalidArguments',
    )
    expect((await ask(ws, JSON.stringify({ id: 3, channel: 'accounts.list' }))).result.error?.code).toBe('Internal')
    const ok = await ask(ws, JSON.stringify({ id: 4, channel: 'app.state' }))
    expect(ok).toEqual({ id: 4, result: { ok: true, value: { version: 't', host: 'web' } } })
    ws.close()
  })

  it('pushes events to connected pages', async () => {
    const ws = await open(host)
    const got = new Promise((resolve) => ws.once('message', (d) => resolve(JSON.parse(d.toString()))))
    events.emit('notify', { id: 'n', kind: 'info', level: 'info', title: 't', message: 'm', atMs: 1 })
    expect(await got).toMatchObject({ event: 'notify', payload: { title: 't' } })
    ws.close()
  })

  it('lets the browser keep the content-hashed assets, never index.html or an unhashed file', async () => {
    const get = (path: string) => fetch(`${host.origin}${path}`)
    const asset = await get('/assets/start-VLKS8ChG.js')
    expect(asset.status).toBe(200)
    expect(asset.headers.get('cache-control')).toBe('public, max-age=31536000, immutable')
    expect(asset.headers.get('content-security-policy')).toContain("script-src 'self'")
    for (const path of ['/', '/index.html', '/assets/notes.js', '/?x=/assets/start-VLKS8ChG.js'])
      expect((await get(path)).headers.get('cache-control'), path).toBe('no-store')
  })

  it('refuses to bind anything but loopback', async () => {
    await expect(
      startWebHost({ core: { dispatch: createDispatcher(handlers()), events, touch: () => {} }, rendererRoot: dir, host: '0.0.0.0' }),
    ).rejects.toMatchObject({ code: 'NonLoopbackBind' })
  })
})
