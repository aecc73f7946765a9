import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { postJson, TransportFailure } from './http-post'

let server: Server
let base = ''
const received: string[] = []

beforeAll(async () => {
  server = createServer((req, res) => {
    let body = ''
    req.on('data', (c) => (body += c))
    req.on('end', () => {
      received.push(body)
      if (req.url === '/drop') return req.socket.destroy()
      if (req.url === '/slow') return // never answers
      res.setHeader('x-trace-id', 't-1')
      res.end(JSON.stringify({ echo: JSON.parse(body) }))
    })
  })
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r))
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
})
afterAll(async () => {
  server.closeAllConnections()
  await new Promise((r) => server.close(r))
})

describe('postJson', () => {
  it('posts JSON and returns status, headers and text', async () => {
    const r = await postJson(`${base}/ok`, '{"a":1}', { timeoutMs: 5000 })
    expect(r.status).toBe(200)
    expect(r.headers['x-trace-id']).toBe('t-1')
    expect(JSON.parse(r.text)).toEqual({ echo: { a: 1 } })
  })

  it('a refused connection failed before the request was written', async () => {
    const probe = createServer()
    await new Promise<void>((r) => probe.listen(0, '127.0.0.1', r))
    const port = (probe.address() as AddressInfo).port
    await new Promise((r) => probe.close(r))
    const e = await postJson(`http://127.0.0.1:${port}/trade`, '{}', { timeoutMs: 5000 }).catch((x: unknown) => x)
    expect(e).toBeInstanceOf(TransportFailure)
    expect(e).toMatchObject({ phase: 'beforeWrite', reason: 'connect' })
  })

  it('a connection dropped after the server read the request is afterWrite (outcome unknown)', async () => {
    const e = await postJson(`${base}/drop`, '{"x":2}', { timeoutMs: 5000 }).catch((x: unknown) => x)
    expect(received).toContain('{"x":2}')
    expect(e).toMatchObject({ phase: 'afterWrite', reason: 'reset' })
  })

  it('a server that never answers hits the client timeout after the write', async () => {
    let written = 0
    const e = await postJson(`${base}/slow`, '{}', { timeoutMs: 200, onWritten: () => written++ }).catch((x: unknown) => x)
    expect(e).toMatchObject({ phase: 'afterWrite', reason: 'timeout' })
    // Told once, when the request was on the socket, though no answer ever came.
    expect(written).toBe(1)
  })

  it('a request that never left (connection refused) never reports itself written', async () => {
    const probe = createServer()
    await new Promise<void>((r) => probe.listen(0, '127.0.0.1', r))
    const port = (probe.address() as AddressInfo).port
    await new Promise((r) => probe.close(r))
    let written = 0
    const e = await postJson(`http://127.0.0.1:${port}/trade`, '{}', { timeoutMs: 5000, onWritten: () => written++ }).catch(
      (x: unknown) => x,
    )
    expect(e).toMatchObject({ phase: 'beforeWrite' })
    expect(written).toBe(0)
  })
})
