import { describe, expect, it } from 'vitest'
import { encodeLine, lineSplitter, parseRequest } from './protocol'

describe('attach protocol', () => {
  it('joins lines split across chunks and skips blank ones', () => {
    const lines: string[] = []
    const feed = lineSplitter(
      (l) => lines.push(l),
      () => lines.push('OVERFLOW'),
      64,
    )
    feed(Buffer.from('{"a":1}\n{"b"'))
    feed(Buffer.from(':2}\n\n'))
    feed(Buffer.from('{"c":3}'))
    expect(lines).toEqual(['{"a":1}', '{"b":2}'])
    feed(Buffer.from('\n'))
    expect(lines).toEqual(['{"a":1}', '{"b":2}', '{"c":3}'])
  })

  it('refuses a line over the limit before buffering it all, once', () => {
    const events: string[] = []
    const feed = lineSplitter(
      (l) => events.push(l),
      () => events.push('OVERFLOW'),
      16,
    )
    feed(Buffer.alloc(10, 0x61))
    feed(Buffer.alloc(10, 0x61))
    feed(Buffer.from('\n{"ok":1}\n'))
    expect(events).toEqual(['OVERFLOW'])
  })

  it('parses only {id, channel, args} objects; bigints travel as decimal strings', () => {
    expect(parseRequest('{"id":"1","channel":"app.state"}')).toEqual({ id: '1', channel: 'app.state', args: undefined })
    for (const bad of ['nope', '[]', 'null', '{"id":1,"channel":"x"}', '{"id":"1"}', `{"id":"${'x'.repeat(65)}","channel":"x"}`])
      expect(parseRequest(bad)).toBeNull()
    expect(encodeLine({ n: 10n ** 20n })).toBe('{"n":"100000000000000000000"}\n')
  })
})
