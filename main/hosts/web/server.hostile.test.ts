/**
 * The web host against hostile sockets: raw TCP clients craft frames a browser never would.
 * Each case must close only the offending socket, with the right close code, log it once,
 * and leave the process and every other session answering.
 */
import { randomBytes } from 'node:crypto'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { connect, type Socket } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import WebSocket from 'ws'
import { EventHub } from '../../core/ipc/events'
import type { DeskCore } from '../../core/app/compose'
import { startWebHost, type WebHost } from './server'

/** The smallest core the host needs: `ping` answers, everything else is unknown. */
function fakeCore(events: EventHub): Pick<DeskCore, 'dispatch' | 'events' | 'touch'> {
  const dispatch = ((channel: unknown) =>
    Promise.resolve(
      channel === 'ping' ? { ok: true, value: 'pong' } : { ok: false, error: { code: 'UnknownChannel', message: 'no' } },
    )) as unknown as DeskCore['dispatch']
  return { dispatch, events, touch: () => {} }
}

/** A client frame (always masked, as RFC 6455 requires from clients). */
function frame(opcode: number, payload: Buffer, fin = true): Buffer {
  const mask = randomBytes(4)
  const len = payload.length
  const head: number[] = [(fin ? 0x80 : 0) | opcode]
  if (len < 126) head.push(0x80 | len)
  else if (len < 65536) head.push(0x80 | 126, len >> 8, len & 0xff)
  else {
    const b = Buffer.alloc(8)
    b.writeBigUInt64BE(BigInt(len))
    head.push(0x80 | 127, ...b)
  }
  const body = Buffer.alloc(len)
  for (let i = 0; i < len; i++) body[i] = payload[i]! ^ mask[i % 4]!
  return Buffer.concat([Buffer.from(head), mask, body])
}

interface RawSession {
  socket: Socket
  /** Resolves with the close code of the server's close frame, or 'cut' if the TCP stream ended without one. */
  closed: Promise<number | 'cut'>
}

/** Opens an authenticated bridge socket by hand: HTTP upgrade, then raw frames. */
function rawSession(host: WebHost): Promise<RawSession> {
  return new Promise((resolve, reject) => {
    const socket = connect(host.port, '127.0.0.1')
    socket.on('error', () => {})
    let buf = Buffer.alloc(0)
    let upgraded = false
    let settleClose: (v: number | 'cut') => void = () => {}
    const closed = new Promise<number | 'cut'>((r) => (settleClose = r))
    socket.on('close', () => settleClose('cut'))
    socket.on('data', (chunk: Buffer) => {
      buf = Buffer.concat([buf, chunk])
      if (!upgraded) {
        const end = buf.indexOf('\r\n\r\n')
        if (end < 0) return
        const head = buf.subarray(0, end).toString()
        if (!head.startsWith('HTTP/1.1 101')) return reject(new Error(head))
        upgraded = true
        buf = buf.subarray(end + 4)
        resolve({ socket, closed })
      }
      // Server frames are unmasked; only the close frame matters to these tests.
      while (buf.length >= 2) {
        let len = buf[1]! & 0x7f
        let off = 2
        if (len === 126) {
          if (buf.length < 4) return
          len = buf.readUInt16BE(2)
          off = 4
        } else if (len === 127) {
          if (buf.length < 10) return
          len = Number(buf.readBigUInt64BE(2))
          off = 10
        }
        if (buf.length < off + len) return
        if ((buf[0]! & 0x0f) === 0x8) settleClose(len >= 2 ? buf.readUInt16BE(off) : 1005)
        buf = buf.subarray(off + len)
      }
    })
    socket.write(
      [
        `GET /bridge?token=${host.token} HTTP/1.1`,
        `Host: 127.0.0.1:${host.port}`,
        `Origin: ${host.origin}`,
        'Upgrade: websocket',
        'Connection: Upgrade',
        `Sec-WebSocket-Key: ${randomBytes(16).toString('base64')}`,
        'Sec-WebSocket-Version: 13',
        '',
        '',
      ].join('\r\n'),
    )
  })
}

function openClient(host: WebHost): Promise<WebSocket> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(`ws://127.0.0.1:${host.port}/bridge?token=${host.token}`, { origin: host.origin })
    ws.once('open', () => resolve(ws))
    ws.once('error', reject)
  })
}

let askId = 0
/** A healthy session still gets its answer. */
function ping(ws: WebSocket): Promise<unknown> {
  const id = ++askId
  return new Promise((resolve, reject) => {
    const onMessage = (d: WebSocket.RawData) => {
      const msg = JSON.parse(d.toString()) as { id?: number; result?: unknown }
      if (msg.id !== id) return
      ws.off('message', onMessage)
      resolve(msg.result)
    }
    ws.on('message', onMessage)
    ws.send(JSON.stringify({ id, channel: 'ping' }), (err) => err && reject(err))
  })
}

describe('web host against hostile sockets', () => {
  let dir: string
  let host: WebHost
  let healthy: WebSocket
  const lines: string[] = []
  const events = new EventHub()

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'desk-web-hostile-'))
    writeFileSync(join(dir, 'index.html'), '<!doctype html><title>t</title>')
    host = await startWebHost({
      core: fakeCore(events),
      rendererRoot: dir,
      limits: { framesPerSecond: 50, frameBurst: 100, maxBufferedBytes: 512 * 1024, closeGraceMs: 500 },
      log: (line) => lines.push(line),
    })
    healthy = await openClient(host)
  })
  afterAll(async () => {
    healthy.close()
    await host.close()
    rmSync(dir, { recursive: true, force: true })
  })

  /** Log lines about one socket, found by the close code they name. */
  const linesWith = (text: string) => lines.filter((l) => l.includes(text))

  it('a 1 MB frame on an authenticated socket closes that socket with 1009, not the process', async () => {
    const bad = await rawSession(host)
    const before = lines.length
    bad.socket.write(frame(0x1, Buffer.alloc(1024 * 1024, 0x61)))
    expect(await bad.closed).toBe(1009)
    expect(await ping(healthy)).toEqual({ ok: true, value: 'pong' })
    const mine = lines.slice(before)
    expect(mine).toHaveLength(1)
    expect(mine[0]).toMatch(/closed 1009 WS_ERR_UNSUPPORTED_MESSAGE_LENGTH/)
    expect(mine[0]).not.toContain('aaaa')
  })

  it('a reserved opcode closes with 1002', async () => {
    const bad = await rawSession(host)
    bad.socket.write(frame(0x3, Buffer.from('x')))
    expect(await bad.closed).toBe(1002)
    expect(await ping(healthy)).toEqual({ ok: true, value: 'pong' })
    expect(linesWith('WS_ERR_INVALID_OPCODE')).toHaveLength(1)
  })

  it('invalid UTF-8 in a text frame closes with 1007', async () => {
    const bad = await rawSession(host)
    bad.socket.write(frame(0x1, Buffer.from([0x7b, 0xff, 0xfe, 0x7d])))
    expect(await bad.closed).toBe(1007)
    expect(await ping(healthy)).toEqual({ ok: true, value: 'pong' })
    expect(linesWith('WS_ERR_INVALID_UTF8')).toHaveLength(1)
  })

  it('a flood of frames closes with 1008 and is logged once', async () => {
    const bad = await rawSession(host)
    const msg = frame(0x1, Buffer.from(JSON.stringify({ id: 1, channel: 'ping' })))
    bad.socket.write(Buffer.concat(Array.from({ length: 2000 }, () => msg)))
    expect(await bad.closed).toBe(1008)
    expect(await ping(healthy)).toEqual({ ok: true, value: 'pong' })
    expect(linesWith('frame rate limit')).toHaveLength(1)
  })

  it('a ping flood closes that socket (rate limit or pong backlog), logged once', async () => {
    const bad = await rawSession(host)
    const before = lines.length
    const p = frame(0x9, Buffer.from('p'))
    bad.socket.write(Buffer.concat(Array.from({ length: 2000 }, () => p)))
    // Either our 1008 wins or ws cuts the socket when its pongs back up: both end only this socket.
    expect([1008, 'cut']).toContain(await bad.closed)
    expect(await ping(healthy)).toEqual({ ok: true, value: 'pong' })
    const mine = lines.slice(before)
    expect(mine).toHaveLength(1)
    expect(mine[0]).toMatch(/frame rate limit|ping flood/)
  })

  it('a socket that stops reading is cut once its send buffer passes the bound', async () => {
    const slow = await rawSession(host)
    slow.socket.pause()
    let cut = false
    void slow.closed.then(() => (cut = true))
    const big = 'x'.repeat(64 * 1024)
    // Kernel buffers absorb the first few MB; keep pushing until the host gives up on it.
    for (let i = 0; i < 1000 && !linesWith('peer not reading').length; i++) {
      events.emit('notify', { id: `n${i}`, kind: 'info', level: 'info', title: 't', message: big, atMs: i })
      await new Promise((r) => setImmediate(r))
    }
    expect(linesWith('peer not reading')).toHaveLength(1)
    slow.socket.resume()
    await slow.closed
    expect(cut).toBe(true)
    expect(await ping(healthy)).toEqual({ ok: true, value: 'pong' })
  })

  it('the host still serves new sessions after all of the above', async () => {
    const fresh = await openClient(host)
    expect(await ping(fresh)).toEqual({ ok: true, value: 'pong' })
    fresh.close()
  })
})
