import { afterEach, describe, expect, it, vi } from 'vitest'
import type { ConfirmRequest } from '../../contract/types'
import { ConfirmBroker } from './confirm-broker'
import { EventHub } from './events'

describe('ConfirmBroker', () => {
  afterEach(() => vi.useRealTimers())

  function setup(timeoutMs = 1000) {
    const hub = new EventHub()
    const seen: ConfirmRequest[] = []
    const closed: { id: string; outcome: string }[] = []
    hub.subscribe((event, payload) => {
      if (event === 'confirm.request') seen.push(payload as ConfirmRequest)
      if (event === 'confirm.closed') closed.push(payload as { id: string; outcome: string })
    })
    return { broker: new ConfirmBroker(hub, timeoutMs), seen, closed }
  }

  it('pushes the summary built in main and resolves with the operator answer', async () => {
    const { broker, seen, closed } = setup()
    const answer = broker.confirm({ title: 'Settle', summary: ['Settle 1.5 USDC'], needsPassphrase: true })
    expect(seen).toHaveLength(1)
    expect(seen[0]).toMatchObject({ title: 'Settle', summary: ['Settle 1.5 USDC'], needsPassphrase: true })
    expect(broker.respond(seen[0]!.id, { approved: true, passphrase: 'pw' })).toBe(true)
    await expect(answer).resolves.toEqual({ approved: true, passphrase: 'pw' })
    expect(closed).toEqual([{ id: seen[0]!.id, outcome: 'approved' }])
    // A second answer to the same request is refused.
    expect(broker.respond(seen[0]!.id, { approved: true })).toBe(false)
  })

  it('ignores answers to unknown ids', () => {
    const { broker } = setup()
    expect(broker.respond('nope', { approved: true })).toBe(false)
  })

  it('declines requests nobody answers, and everything on cancelAll', async () => {
    vi.useFakeTimers()
    const { broker, closed } = setup(1000)
    const a = broker.confirm({ title: 'A', summary: ['a'], needsPassphrase: false })
    vi.advanceTimersByTime(1001)
    await expect(a).resolves.toEqual({ approved: false })
    const b = broker.confirm({ title: 'B', summary: ['b'], needsPassphrase: false })
    broker.cancelAll()
    await expect(b).resolves.toEqual({ approved: false })
    expect(closed.map((c) => c.outcome)).toEqual(['expired', 'declined'])
  })

  it('names the signing key: the owner key of the account the write names, with the operator name the context adds', () => {
    const { broker, seen } = setup()
    broker.setContext((r) => ({
      ...r,
      details: { ...r.details, account: { name: 'Treasury A', address: '0x1111111111111111111111111111111111111111' } },
    }))
    void broker.confirm({
      title: 'Transfer',
      summary: ['x'],
      needsPassphrase: false,
      details: { account: { name: '', address: '0x1111111111111111111111111111111111111111' } },
    })
    expect(seen[0]!.details?.signer).toEqual({
      role: 'owner',
      label: 'Treasury A',
      address: '0x1111111111111111111111111111111111111111',
      owner: '0x1111111111111111111111111111111111111111',
    })
    // A write that names its signer keeps it.
    const agent = {
      role: 'agent' as const,
      slot: 2,
      label: 'API key slot 2',
      address: '0x2222222222222222222222222222222222222222' as const,
      owner: '0x1111111111111111111111111111111111111111' as const,
    }
    void broker.confirm({
      title: 'T',
      summary: ['x'],
      needsPassphrase: false,
      details: { account: { name: '', address: agent.owner }, signer: agent },
    })
    expect(seen[1]!.details?.signer).toEqual(agent)
    broker.cancelAll()
  })
})
