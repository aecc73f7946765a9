import { afterEach, describe, expect, it } from 'vitest'
import { openJournalFile, type Journal } from '../journal'
import { KeyedMutex, NonceAllocator } from './nonces'

const S = '0x1111111111111111111111111111111111111111'
let j: Journal
afterEach(() => j?.closeNow())

describe('NonceAllocator', () => {
  it('uses the current millisecond and increments within the same one', () => {
    j = openJournalFile(':memory:')
    const a = new NonceAllocator(j, () => 1000)
    expect([a.next('n', S), a.next('n', S), a.next('n', S)]).toEqual([1000n, 1001n, 1002n])
    // Independent per signer, network and kind.
    expect(a.next('n', '0x2222222222222222222222222222222222222222')).toBe(1000n)
    expect(a.next('m', S)).toBe(1000n)
    expect(a.next('n', S, 'withdraw')).toBe(1000n)
  })

  it('never goes below a persisted nonce, so a restart with a clock behind never reuses one', () => {
    j = openJournalFile(':memory:')
    j.record({
      channel: 'trade',
      key: 'k',
      network: 'n',
      account: S,
      signer: S,
      actionType: 'order',
      summary: '',
      nonce: '5000',
      body: '{}',
    })
    const afterRestart = new NonceAllocator(j, () => 1000)
    expect(afterRestart.next('n', S)).toBe(5001n)
    expect(afterRestart.next('n', S.toUpperCase().replace('0X', '0x'))).toBe(5002n)
  })
})

describe('KeyedMutex', () => {
  it('serialises tasks of one key and lets other keys run', async () => {
    const m = new KeyedMutex()
    const log: string[] = []
    let releaseA!: () => void
    const gate = new Promise<void>((r) => (releaseA = r))
    const a = m.run('k', async () => {
      log.push('a-start')
      await gate
      log.push('a-end')
    })
    const b = m.run('k', async () => void log.push('b'))
    const c = m.run('other', async () => void log.push('c'))
    await c
    expect(log).toEqual(['a-start', 'c'])
    releaseA()
    await Promise.all([a, b])
    expect(log).toEqual(['a-start', 'c', 'a-end', 'b'])
  })
})
