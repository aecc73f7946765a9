import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startSandbox, type SandboxHandle } from '../index'
import { devOwner } from '../scenario/dev-keys'
import { actionSender } from '../scenario/signed-actions'
import type { TradeAction } from '../../main/core/wire/actions'

/**
 * Real staleness end to end, on a fake clock: with the feed publishing, a credit account's
 * partial settle goes through; frozen for more than 60 s, the oracle says StalePrice, USD values
 * turn null and the same settle is refused with OracleMarkPriceMissing; unfrozen, all is back.
 */
let sb: SandboxHandle
const clock = { t: Date.now() }
const info = async (body: unknown): Promise<any> => (await sb.trading.handleInfo(JSON.stringify(body), 'test')).body
const admin = async (route: string) => (await fetch(`${sb.adminUrl}/${route}`, { method: 'POST' })).json()
const nextBlock = () => new Promise((r) => setTimeout(r, 80))

beforeAll(async () => {
  sb = await startSandbox({ seed: true, blockMs: 20, rateLimits: false, botIntervalMs: 0, markIntervalMs: 0, now: () => clock.t })
})
afterAll(async () => {
  await sb?.stop()
})

describe('stale marks', () => {
  it('settle needs fresh marks; freezing the feed past 60 s makes them stale for real', async () => {
    const credit = actionSender(sb.trading, devOwner(3).privateKey, 'test', () => clock.t)
    let n = 0
    const settle = (): TradeAction =>
      ({
        type: 'settle',
        asset_id: '3',
        amount: '100000',
        cash_account: devOwner(0).address,
        cloid: `0x${(++n).toString(16).padStart(32, '0')}`,
      }) as TradeAction
    const user = devOwner(3).address

    await admin('marks/step')
    clock.t += 30_000
    await admin('marks/step')
    await nextBlock()
    expect((await info({ type: 'oracleStatus' })).oracle_status).toEqual({ status: 'available' })
    expect((await credit.send(settle())).body).toMatchObject({ submission_status: 'accepted', response: { type: 'default' } })

    await admin('marks/freeze')
    clock.t += 61_000
    await nextBlock()
    expect((await info({ type: 'oracleStatus' })).oracle_status).toEqual({ status: 'unavailable', reason_code: 'StalePrice' })
    const acct = await info({ type: 'spotCreditAccount', user })
    expect(acct.available_usd_atoms).toBeNull()
    expect(acct.last_known_available_usd_atoms).toMatch(/^-?\d+$/)
    expect((await credit.send(settle())).body).toMatchObject({ submission_status: 'rejected', error: { code: 'OracleMarkPriceMissing' } })

    await admin('marks/unfreeze')
    await nextBlock()
    expect((await info({ type: 'oracleStatus' })).oracle_status).toEqual({ status: 'available' })
    expect((await info({ type: 'spotCreditAccount', user })).available_usd_atoms).toMatch(/^-?\d+$/)
    expect((await credit.send(settle())).body).toMatchObject({ submission_status: 'accepted' })
  })

  it('the staleMarks fault stops the feed, so the timestamps of the marks age; clearing it resumes publishing', async () => {
    const post = async (body: unknown) =>
      (await (
        await fetch(`${sb.adminUrl}/faults`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify(body),
        })
      ).json()) as { marks_frozen: boolean }
    const marks = async () => (await (await fetch(`${sb.adminUrl}/marks`)).json()) as { frozen: boolean; marks: { source_ts_ms: number }[] }
    expect((await post({ trading: { staleMarks: true } })).marks_frozen).toBe(true)
    const before = (await marks()).marks.map((m) => m.source_ts_ms)
    clock.t += 5_000
    await admin('marks/step') // a publication while frozen changes nothing
    expect((await marks()).marks.map((m) => m.source_ts_ms)).toEqual(before)
    expect((await post({ trading: { staleMarks: false } })).marks_frozen).toBe(false)
    await admin('marks/step')
    expect(Math.min(...(await marks()).marks.map((m) => m.source_ts_ms))).toBeGreaterThan(Math.max(...before))
  })
})
