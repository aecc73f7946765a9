/**
 * Credit health against the sandbox: what the credit screen and the desk's status show per
 * credit account (contributions per asset, stale marks, frozen), its kept history, and the
 * stream's figures agreeing with /info's.
 */
import { describe, expect, it } from 'vitest'
import type { Address } from 'viem'
import { devOwner } from '../../../../sandbox/scenario/dev-keys'
import { useReadServicesSandbox } from '../../../testing/read-services-on-sandbox'

const rig = useReadServicesSandbox()
const services = rig.services

describe('credit health against the sandbox', () => {
  it('credit health: contributions per asset, stale marks show last-known, frozen is its own level, history is kept', async () => {
    const { credit } = services()
    const addr = devOwner(3).address
    const h = await credit.health(addr)
    expect(h).not.toBeNull()
    expect(h!.positions.map((p) => p.symbol).sort()).toEqual(['BTC', 'USDC'])
    expect(h!.positions.find((p) => p.symbol === 'BTC')!.contributionUsd).not.toBeNull()
    expect(h!.marksStale).toBe(false)
    expect(h!.availableUsd).not.toBeNull()
    expect(['ok', 'watch', 'warning', 'critical']).toContain(h!.warning)

    rig.sb.trading.faults.staleMarks = true
    const stale = await credit.health(addr)
    expect(stale!.availableUsd).toBeNull()
    expect(stale!.lastKnownAvailableUsd).not.toBeNull()
    expect(stale!.marksStale).toBe(true)
    // says why, in words the operator can act on
    expect(stale!.availableReason).toMatch(/oracle unavailable \(StalePrice\)|mark for \w+ is \d+ s old/)
    rig.sb.trading.faults.staleMarks = false

    rig.sb.trading.freeze(addr as Address)
    expect((await credit.health(addr))!.warning).toBe('frozen')
    rig.sb.trading.unfreeze(addr as Address)

    expect(await credit.health(devOwner(0).address)).toBeNull()
    const hist = credit.history(addr, 0)
    expect(hist.length).toBeGreaterThanOrEqual(3)
    expect(hist.some((s) => s.availableUsd === null)).toBe(true)
  })
  it('credit health from the stream matches /info (available USD computed from positions at mark), with no request', async () => {
    const pool = await rig.startPool((p) => p.state(devOwner(3).address).credit !== null)
    try {
      const { credit, market } = services({ pool })
      for (const i of [3, 4]) {
        // Marks walk in this sandbox: compare a pair read under the same marks (retry when one moved between).
        const pair = async () => {
          const viaInfo = await credit.health(devOwner(i).address)
          const md = await market.get()
          return { viaInfo, live: credit.healthLive(devOwner(i).address, md) }
        }
        let { viaInfo, live } = await pair()
        for (let n = 0; n < 20 && live?.availableUsd !== viaInfo?.availableUsd; n++) ({ viaInfo, live } = await pair())
        expect(live).toBeTruthy()
        expect(live!.availableUsd).toBe(viaInfo!.availableUsd)
        expect(live!.creditUsd).toBe(viaInfo!.creditUsd)
        const noAge = (ps: { markAgeMs: number | null }[]) => ps.map((p) => ({ ...p, markAgeMs: null }))
        expect(noAge(live!.positions)).toEqual(noAge(viaInfo!.positions))
        expect(live!.tradingWhitelist).toEqual(viaInfo!.tradingWhitelist)
      }
      // A balance account's credit channel is not streamed: the stream cannot say, so /info is asked.
      expect(credit.healthLive(devOwner(0).address, await market.get())).toBeUndefined()
    } finally {
      await pool.stop()
    }
  })
})
