import { describe, expect, it } from 'vitest'
import { realClock } from './clock'
import { parseFrame, quoteBigIds } from './frames'
import { StreamPool } from './pool'

const REGEX = /"(tid|oid)":(\d{16,})(?=[,}])/g
const byRegex = (t: string) => t.replace(REGEX, '"$1":"$2"')

describe('quoting big fill ids before the plain parse', () => {
  it('rewrites exactly what the regular expression did', () => {
    const cases = [
      '{"channel":"userFills","data":{"user":"0x01","fills":[{"tid":9007199254740993,"oid":12,"x":1}]}}',
      '{"channel":"userFills","data":{"fills":[{"oid":123456789012345678901,"tid":1234567890123456}]}}',
      '{"tid":1234567890123456.5,"oid":12345678901234567}',
      '{"tid":"1234567890123456","oid":1234567890123456]}',
      '{"xtid":12345678901234567,"Tid":12345678901234567,"tid":123456789012345}',
      'id":12345678901234567,"tid":12345678901234567}',
      '{"a":"oid\\":12345678901234567,","tid":00000000000000000}',
      '',
      'no ids here',
    ]
    for (const c of cases) expect(quoteBigIds(c), c).toBe(byRegex(c))
    const plain = '{"channel":"userFills","data":{"fills":[{"tid":5,"oid":7}]}}'
    expect(quoteBigIds(plain)).toBe(plain)
  })

  it('keeps a tid beyond 2^53 exact through the parse', () => {
    const f = parseFrame(
      '{"channel":"userFills","data":{"user":"0x00000000000000000000000000000000000000aa","fills":[{"coin":"1","px":"1","sz":"1","side":"B","time":1,"oid":9007199254740993,"tid":9007199254740995,"cloid":null}]}}',
    )
    expect(f.channel === 'userFills' && f.data.fills[0]!.tid).toBe(9007199254740995n)
  })
})

describe('skipping repeated snapshot frames', () => {
  const user = '0x00000000000000000000000000000000000000AB'
  const frame = (total: string) =>
    `{"channel":"spotState","data":{"user":"${user}","balances":[{"coin":"USDC","token":1,"total":"${total}","hold":"0"}]}}`

  it('refreshes the age on an exact repeat (mixed-case user), and applies a changed frame', async () => {
    let now = 1_000
    const pool = new StreamPool({ wsUrl: 'ws://127.0.0.1:1/ws', clock: { ...realClock, now: () => now } })
    expect(pool.ingestText(frame('10'))).toBe(true)
    const first = pool.state(user).balances!
    now = 2_000
    pool.ingestText(frame('10'))
    expect(pool.state(user).balances!.at).toBe(2_000)
    expect(pool.state(user).balances!.value).toBe(first.value) // not re-parsed: the same state object
    now = 3_000
    pool.ingestText(frame('11'))
    expect(pool.state(user).balances!.value[0]!.total).toBe('11')
    // The earlier text is no longer the latest: it is news again, not a repeat.
    pool.ingestText(frame('10'))
    expect(pool.state(user).balances!.value[0]!.total).toBe('10')
    await pool.stop()
  })
})
