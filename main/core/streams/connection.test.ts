import { describe, expect, it } from 'vitest'
import { ManualClock } from './testing/manual-clock'
import { StreamConnection, type ConnectionOptions } from './connection'
import type { Frame } from './frames'
import { fakeSockets } from './testing/fake-socket'

const A = '0x00000000000000000000000000000000000000aa'

function setup(extra: Partial<ConnectionOptions> = {}, { autoPong = true } = {}) {
  const clock = new ManualClock(1_000_000)
  const fs = fakeSockets({ autoPong })
  const frames: Frame[] = []
  const problems: string[] = []
  const c = new StreamConnection({
    url: 'ws://x/ws',
    subscriptions: [{ channel: 'spotState', user: A }],
    clock,
    random: () => 0.5,
    createSocket: fs.factory,
    onFrame: (f) => frames.push(f),
    onProblem: (t) => problems.push(t),
    ...extra,
  })
  c.start()
  fs.last().open()
  return { clock, fs, frames, problems, c }
}

const balances = (total: string) => ({ user: A, balances: [{ coin: 'USDC', token: 1, total, hold: '0' }] })

describe('StreamConnection liveness', () => {
  it('pings after subscribing and after 1 s of silence; drops the socket when a pong does not come within 3 s, then reconnects with jittered backoff', () => {
    const { clock, fs, problems, c } = setup({}, { autoPong: false })
    const s = fs.last()
    expect(s.methods()).toEqual(['subscribe', 'ping']) // its pong comes after the subscription's answers
    s.frame('pong')
    clock.advance(999)
    expect(s.methods()).toEqual(['subscribe', 'ping'])
    clock.advance(1)
    expect(s.methods()).toEqual(['subscribe', 'ping', 'ping'])
    s.frame('pong') // answered in time
    clock.advance(1_000) // 1 s since the pong: probe again, silence
    expect(s.methods()).toEqual(['subscribe', 'ping', 'ping', 'ping'])
    clock.advance(2_999)
    expect(c.state).toBe('open')
    clock.advance(1)
    expect(s.terminated).toBe(true)
    expect(c.state).toBe('waiting')
    expect(problems.at(-1)).toMatch(/no pong within 3000 ms of a ping on a silent socket/)
    // silence noticed 4 s after the last frame, not after the 30 s keep-alive period
    expect(fs.sockets).toHaveLength(1)
    clock.advance(374) // 500 ms base with equal jitter at random 0.5: 375 ms
    expect(fs.sockets).toHaveLength(1)
    clock.advance(1)
    expect(fs.sockets).toHaveLength(2)
    fs.last().open()
    expect(c.state).toBe('open')
    expect(c.reconnects).toBe(1)
    expect(fs.last().methods()).toEqual(['subscribe', 'ping'])
  })

  it('other frames do not answer a ping: a socket that went silent and came back before the deadline is replaced', () => {
    const interrupted: string[][] = []
    const { clock, fs, problems, c } = setup({ onInterrupted: (subs) => interrupted.push(subs.map((x) => x.user)) }, { autoPong: false })
    const s = fs.last()
    s.frame('pong')
    clock.advance(1_000) // silent for 1 s: probe, and its pong is lost with the rest
    expect(s.methods()).toEqual(['subscribe', 'ping', 'ping'])
    clock.advance(1_000)
    s.frame('spotState', balances('1')) // the socket speaks again
    clock.advance(1_999)
    expect(c.state).toBe('open')
    expect(interrupted).toEqual([])
    clock.advance(1)
    expect(s.terminated).toBe(true)
    expect(problems.at(-1)).toMatch(/no pong within 3000 ms of a ping, though other frames came: the socket went silent and came back/)
    expect(interrupted).toEqual([[A]])
  })

  it('a socket opened while the service is mute is replaced when its first pong does not come, though it speaks before the deadline', () => {
    const { clock, fs, c } = setup({}, { autoPong: false })
    const s = fs.last()
    clock.advance(500)
    s.frame('spotState', balances('1')) // the service speaks again: the subscription's answers were lost
    clock.advance(2_499)
    expect(c.state).toBe('open')
    clock.advance(1)
    expect(s.terminated).toBe(true)
  })

  it('new topics on an open socket are followed by a ping, or by one more once the pending ping is answered', () => {
    const { fs, c } = setup({}, { autoPong: false })
    const s = fs.last()
    const B = '0x00000000000000000000000000000000000000bb'
    c.setSubscriptions([
      { channel: 'spotState', user: A },
      { channel: 'spotState', user: B },
    ])
    expect(s.methods()).toEqual(['subscribe', 'ping', 'subscribe']) // the open ping is still out
    s.frame('pong')
    expect(s.methods()).toEqual(['subscribe', 'ping', 'subscribe', 'ping'])
    s.frame('pong')
    c.setSubscriptions([{ channel: 'spotState', user: B }]) // only a topic removed: nothing to prove
    expect(s.methods()).toEqual(['subscribe', 'ping', 'subscribe', 'ping', 'unsubscribe'])
  })

  it('a busy socket is not probed for silence but pings every 30 s for the idle-close rule, and that ping needs its pong too', () => {
    const { clock, fs, problems, c } = setup()
    const s = fs.last()
    for (let i = 0; i < 80; i++) {
      clock.advance(500)
      s.frame('spotState', balances(String(i)))
    }
    expect(c.state).toBe('open')
    // no probe (frames kept coming), but the keep-alive ping went out 30 s after the open one
    expect(s.methods()).toEqual(['subscribe', 'ping', 'ping'])
    expect(clock.pending()).toBe(1) // one watch timer (pongs answered within the send did not start a second)
    s.autoPong = false
    for (let i = 0; i < 60 && !s.terminated; i++) {
      clock.advance(500)
      s.frame('spotState', balances(String(i)))
    }
    expect(s.methods()).toEqual(['subscribe', 'ping', 'ping', 'ping'])
    expect(s.terminated).toBe(true)
    expect(problems.at(-1)).toMatch(/though other frames came/)
  })

  it('backoff grows while the server never talks and resets once it does', () => {
    const { clock, fs } = setup({ random: () => 0 })
    const delays: number[] = []
    for (let i = 0; i < 4; i++) {
      const n = fs.sockets.length
      fs.last().fail('ECONNREFUSED')
      let waited = 0
      while (fs.sockets.length === n) {
        clock.advance(1)
        waited++
      }
      delays.push(waited)
    }
    expect(delays).toEqual([250, 500, 1000, 2000]) // equal jitter at random 0: half of 500 * 2^n
    fs.last().open()
    fs.last().frame('pong')
    fs.last().fail('reset')
    const n = fs.sockets.length
    clock.advance(250)
    expect(fs.sockets.length).toBe(n + 1)
  })
})

describe('StreamConnection garbage', () => {
  it('drops invalid JSON, non-objects, unknown channels and wrong shapes with one problem each and keeps the socket', () => {
    const { fs, frames, problems, c } = setup()
    const s = fs.last()
    s.text('{"channel":"spotState","data":')
    s.text('[1,2,3]')
    s.text('"just a string"')
    s.frame('madeUpChannel', { x: 1 })
    s.frame('spotState', { user: A, balances: [{ coin: 'USDC', token: 'one', total: '1', hold: '0' }] })
    s.frame('userFills', { user: 'not-an-address', fills: [] })
    expect(problems).toHaveLength(6)
    expect(problems[0]).toMatch(/dropped stream frame: .*not valid JSON/)
    expect(problems[3]).toMatch(/unknown channel "madeUpChannel"/)
    expect(problems[4]).toMatch(/spotState frame: balances\.0\.token/)
    expect(problems[5]).toMatch(/userFills frame: user/)
    expect(c.dropped).toBe(6)
    expect(frames).toEqual([])
    // the socket is kept and the next good frame goes through
    s.frame('spotState', balances('5'))
    expect(frames).toHaveLength(1)
    expect(c.state).toBe('open')
    expect(s.terminated || s.closedWith !== null).toBe(false)
  })

  it('known channels the desk does not use pass silently; server error texts are reported, repeat-subscribe ones ignored', () => {
    const { fs, frames, problems } = setup()
    fs.last().frame('trades', [])
    fs.last().frame('error', 'Already subscribed: {"type":"spotState"}')
    fs.last().frame('error', 'Too many subscriptions')
    expect(frames.map((f) => f.channel)).toEqual(['other'])
    expect(problems).toEqual(['Too many subscriptions'])
  })

  it.each([
    ['a binary frame', (s: ReturnType<typeof fakeSockets>['sockets'][number]) => s.binary(Buffer.from([1, 2, 3])), 1003, /binary frame/],
    [
      'invalid UTF-8',
      (s: ReturnType<typeof fakeSockets>['sockets'][number]) => s.text(Buffer.from([0x7b, 0xff, 0xfe, 0x7d])),
      1007,
      /not valid UTF-8/,
    ],
    [
      'an oversized frame',
      (s: ReturnType<typeof fakeSockets>['sockets'][number]) => s.frame('spotState', balances('1'.repeat(2000))),
      1009,
      /over the 1024-byte cap/,
    ],
  ])('%s breaks the protocol: one problem, the socket is closed and replaced', (_name, send, code, text) => {
    const { clock, fs, frames, problems, c } = setup({ maxFrameBytes: 1024 })
    const s = fs.last()
    send(s)
    expect(problems).toHaveLength(1)
    expect(problems[0]).toMatch(text)
    expect(s.closedWith).toBe(code)
    expect(frames).toEqual([])
    expect(c.state).toBe('waiting')
    clock.advance(375)
    expect(fs.sockets).toHaveLength(2)
    fs.last().open()
    fs.last().frame('spotState', balances('2'))
    expect(frames).toHaveLength(1)
  })

  it("an 'error' event is logged once, never thrown, and the socket is replaced", () => {
    const { clock, fs, problems, c } = setup()
    expect(() => fs.last().fail('read ECONNRESET')).not.toThrow()
    expect(problems).toEqual(['stream socket error: read ECONNRESET'])
    expect(c.state).toBe('waiting')
    clock.advance(375)
    expect(fs.sockets).toHaveLength(2)
  })

  it('a consumer that throws does not break the socket', () => {
    const { fs, problems, c } = setup({
      onFrame: () => {
        throw new Error('consumer bug')
      },
    })
    expect(() => fs.last().frame('spotState', balances('1'))).not.toThrow()
    expect(problems).toEqual(['stream frame handler failed: consumer bug'])
    expect(c.state).toBe('open')
  })
})

describe('StreamConnection: the end of a live subscription', () => {
  const ack = (s: { frame(channel: string, data?: unknown): void }, user = A) =>
    s.frame('subscriptionResponse', { method: 'subscribe', subscription: { type: 'spotState', user } })

  it('says when an acknowledged topic stops being carried: moved off the socket, or the socket closed', () => {
    const ended: [string[], number][] = []
    const { clock, fs, c } = setup({
      silenceMs: 10_000_000, // no liveness probe in the way: the socket stays up through the quiet spell
      onLiveEnd: (subs, at) => ended.push([subs.map((s) => `${s.channel}:${s.user}`), at]),
    })
    const s = fs.last()
    // Not acknowledged yet: nothing was live, nothing ends.
    c.setSubscriptions([])
    expect(ended).toEqual([])
    c.setSubscriptions([{ channel: 'spotState', user: A }])
    ack(s)
    clock.advance(100_000) // a quiet account: no frame for 100 s, still current while carried
    expect(c.carriesLive({ channel: 'spotState', user: A }, 1_000_000)).toBe(true)
    c.setSubscriptions([])
    expect(ended).toEqual([[[`spotState:${A}`], 1_100_000]])
    c.setSubscriptions([{ channel: 'spotState', user: A }])
    ack(s)
    clock.advance(5_000)
    s.close(1006)
    expect(ended.at(-1)).toEqual([[`spotState:${A}`], 1_105_000])
    expect(c.carriesLive({ channel: 'spotState', user: A }, 1_000_000)).toBe(false)
  })
})
