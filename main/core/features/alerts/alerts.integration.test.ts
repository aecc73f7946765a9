import { randomBytes } from 'node:crypto'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { accepted, actionSender } from '../../../../sandbox/scenario/signed-actions'
import { devBot, devOwner } from '../../../../sandbox/scenario/dev-keys'
import type { AlertKind, AlertNotificationEvent, AlertSettingsView, AlertView } from '../../../contract/types'
import { JOURNAL_FILE, openJournalFile } from '../../journal'
import type { TradeAction } from '../../wire/actions'
import { startDeskOnSandbox, TEST_PASSPHRASE, type DeskOnSandbox } from '../../../testing/desk-on-sandbox'
import { AlertService } from './alerts.service'
import { inQuietHours } from './quiet-hours'

const hhmm = (d: Date) => `${String(d.getHours()).padStart(2, '0')}:${String(d.getMinutes()).padStart(2, '0')}`

describe('quiet hours', () => {
  const at = (h: number, m: number) => new Date(2026, 0, 1, h, m)
  it('covers [start, end), across midnight too; equal ends is no window', () => {
    expect(inQuietHours({ start: '22:00', end: '07:00' }, at(23, 30))).toBe(true)
    expect(inQuietHours({ start: '22:00', end: '07:00' }, at(6, 59))).toBe(true)
    expect(inQuietHours({ start: '22:00', end: '07:00' }, at(7, 0))).toBe(false)
    expect(inQuietHours({ start: '22:00', end: '07:00' }, at(12, 0))).toBe(false)
    expect(inQuietHours({ start: '12:00', end: '13:00' }, at(12, 0))).toBe(true)
    expect(inQuietHours({ start: '12:00', end: '12:00' }, at(12, 0))).toBe(false)
    expect(inQuietHours(null, at(12, 0))).toBe(false)
  })
})

describe('alerts evaluated in main on the sandbox, fired once each', () => {
  let d: DeskOnSandbox
  let stopConfirm: () => void
  const notes: AlertNotificationEvent[] = []
  const o = (i: number) => devOwner(i).address
  const list = () => d.call<AlertView[]>('alerts.list', {})
  const of = async (kind: AlertKind, account?: string) =>
    (await list()).filter((a) => a.kind === kind && (account === undefined || a.account?.toLowerCase() === account.toLowerCase()))
  const until = async (what: string, pred: () => Promise<boolean>, ms = 20_000) => {
    const end = Date.now() + ms
    while (Date.now() < end) {
      if (await pred()) return
      await new Promise((r) => setTimeout(r, 150))
    }
    throw new Error(`timed out waiting for ${what}`)
  }
  // The timer's full passes, counted: a test waits for passes, not for a length of time that a
  // loaded machine may not fit them in. Passes run one at a time, so they end in the order asked.
  const passAskedAt: number[] = []
  let passesEnded = 0
  const evaluate = AlertService.prototype.evaluate
  vi.spyOn(AlertService.prototype, 'evaluate').mockImplementation(function (this: AlertService) {
    passAskedAt.push(Date.now())
    return evaluate.call(this).finally(() => passesEnded++)
  })
  /** Waits until a full pass asked for at `from` or later has ended (`n`: that many such passes). */
  const passesFrom = (from: number, n = 1) =>
    until(`${n} evaluation pass(es)`, async () => passAskedAt.filter((t, i) => t >= from && i < passesEnded).length >= n)
  /** Waits for two more full evaluation passes (1 s apart), so a repeat would have fired. */
  const twoPasses = () => passesFrom(Date.now(), 2)

  beforeAll(async () => {
    d = await startDeskOnSandbox({ alerts: true })
    // Listening from the start: on a loaded machine the first pass (default thresholds) can run
    // before the settings below land, and its alerts must be pushed too.
    d.core.events.subscribe((event, payload) => {
      if (event === 'notify' && 'alertId' in payload) notes.push(payload as AlertNotificationEvent)
    })
    await d.call('vault.create', { passphrase: TEST_PASSPHRASE })
    await d.call('accounts.importSandboxKeys')
    stopConfirm = d.autoConfirm()
    const s = await d.call<AlertSettingsView>('alerts.settings.update', { checkIntervalSec: 1, ltvThresholdsPct: [1] })
    expect(s).toMatchObject({ checkIntervalSec: 1, ltvThresholdsPct: [1], quietHours: null })
    // the first pass: the seeded claimable earn withdrawal of owner 1 (after owner 0's baseline was taken)
    await until('the first pass', async () => (await of('earn-claimable', o(1))).length > 0)
  }, 60_000)
  afterAll(async () => {
    stopConfirm?.()
    await d?.close()
  })

  it('earn claimable and credit line in use past the threshold: once, not on every pass', async () => {
    await twoPasses()
    expect(await of('earn-claimable', o(1))).toHaveLength(1)
    // owner 4's seeded short (-2.9 ETH at 3200 on a 10000 USD line) uses about 93% of it; owner 3's
    // long collateral leaves more available than its line (none in use)
    // (The default thresholds may have fired first, before the 1% setting landed: each once.)
    const at1 = async (i: number) => (await of('ltv', o(i))).filter((a) => /threshold 1%/.test(a.message))
    expect(await at1(4)).toHaveLength(1)
    expect(await of('ltv', o(3))).toHaveLength(0)
    const ltv = (await at1(4))[0]!
    // the shared format: the account by name and short address, USD one way ($10,000.00)
    expect(ltv.message).toMatch(
      /^.+ \(0x[0-9a-fA-F]{4}…[0-9a-fA-F]{4}\) uses 9[0-9]\.[0-9]+% of its \$10,000\.00 credit line \(threshold 1%\); available \$[0-9,]+\.[0-9]{2,}/,
    )
    expect(ltv.title).toMatch(/^Credit line 9[0-9]\.[0-9]+% in use, past 1%: .+ \(0x[0-9a-fA-F]{4}…[0-9a-fA-F]{4}\)$/)
  })

  it('credit line in use: fires on each upward crossing, re-armed only once it drops back below', async () => {
    const ETH = 4
    const usd = (x: bigint) => x * 100_000_000n
    const at95 = async () => (await of('ltv', o(4))).filter((a) => /threshold 95%/.test(a.message))
    d.sandbox.trading.setMark(ETH, usd(3200n)) // owner 4: 2.9 x 3200 = 9280 of 10000 in use (92.8%)
    await d.call('alerts.settings.update', { ltvThresholdsPct: [95] })
    await twoPasses()
    expect(await at95()).toHaveLength(0)
    d.sandbox.trading.setMark(ETH, usd(3400n)) // 9860 in use: 98.6%
    await until('the crossing alert', async () => (await at95()).length === 1)
    expect((await at95())[0]!.message).toMatch(/uses 98\.6% of its \$10,000\.00 credit line/)
    await twoPasses()
    expect(await at95()).toHaveLength(1)
    d.sandbox.trading.setMark(ETH, usd(3200n))
    await passesFrom(Date.now() + 5_100) // a pass past the desk's 5 s market-data cache (marks read after the drop)
    expect(await at95()).toHaveLength(1)
    d.sandbox.trading.setMark(ETH, usd(3400n))
    await until('the second crossing alert', async () => (await at95()).length === 2)
    d.sandbox.trading.setMark(ETH, usd(3200n))
  }, 60_000)

  it('one alert per condition: thresholds crossed in one pass alert once, for the highest (issue 31)', async () => {
    const ETH = 4
    const usd = (x: bigint) => x * 100_000_000n
    const past = async () => (await of('ltv', o(4))).filter((a) => /threshold 9[67]%/.test(a.message))
    await d.call('alerts.settings.update', { ltvThresholdsPct: [96, 97] })
    d.sandbox.trading.setMark(ETH, usd(3400n)) // 98.6% in use: past both at once
    await until('the crossing alert', async () => (await past()).length > 0)
    await twoPasses()
    const fired = await past()
    expect(fired).toHaveLength(1)
    expect(fired[0]!.message).toMatch(/threshold 97%/)
    expect(fired[0]!.level).toBe('error')
    d.sandbox.trading.setMark(ETH, usd(3200n))
  }, 60_000)

  it('funds received: a deposit record, and a balance rise nobody on the desk explains', async () => {
    d.sandbox.trading.deposit(o(2) as `0x${string}`, 1, 12_345_000_000n)
    await until('deposit alert', async () => (await of('funds-received', o(2))).length === 1)
    expect((await of('funds-received', o(2)))[0]!.message).toMatch(/^123\.45 USDC deposited to .+ \(0x[0-9a-fA-F]{4}…[0-9a-fA-F]{4}\)\.$/)

    // someone outside the desk transfers 50 USDC to owner 2: no deposit record, no fill, no journaled write
    const bot = devBot(0) // the market maker's key; its bot is off in these tests
    d.sandbox.trading.deposit(bot.address as `0x${string}`, 1, 1_000_000_000_000n)
    const sent = await actionSender(d.sandbox.trading, bot.privateKey, 'alerts-test').send({
      type: 'transfer',
      to: o(2),
      asset_id: '1',
      amount: '5000000000',
      cloid: `0x${randomBytes(16).toString('hex')}`,
    } as TradeAction)
    expect(accepted(sent), JSON.stringify(sent.body)).toBe(true)
    await until('balance-rise alert', async () => (await of('funds-received', o(2))).length === 2)
    expect((await of('funds-received', o(2)))[0]!.message).toMatch(
      /USDC balance of .+ \(0x[0-9a-fA-F]{4}…[0-9a-fA-F]{4}\) rose by 50 USDC \(to [0-9,]+(\.[0-9]+)? USDC\)/,
    )
    await twoPasses()
    expect(await of('funds-received', o(2))).toHaveLength(2)
  })

  it('order filled: both sides of a trade, once each', async () => {
    const order = (side: 'bid' | 'ask', tif: 'gtc' | 'ioc'): TradeAction =>
      ({ type: 'order', market_id: '1', side, order_type: 'limit', tif, price: '64000', quantity: '0.01' }) as TradeAction
    expect(accepted(await actionSender(d.sandbox.trading, devOwner(1).privateKey, 'a1').send(order('bid', 'gtc')))).toBe(true)
    expect(accepted(await actionSender(d.sandbox.trading, devOwner(0).privateKey, 'a0').send(order('ask', 'ioc')))).toBe(true)
    await until('fill alerts', async () => (await of('order-filled', o(1))).length === 1 && (await of('order-filled', o(0))).length === 1)
    expect((await of('order-filled', o(1)))[0]!.message).toMatch(
      /^Bought 0\.01 BTC at 64,000 USDC on BTC\/USDC for .+ \(0x[0-9a-fA-F]{4}…[0-9a-fA-F]{4}\) \(1 fill, oid [0-9]+\)\.$/,
    )
    expect((await of('order-filled', o(0)))[0]!.message).toMatch(/^Sold 0\.01 BTC at 64,000 USDC/)
    await twoPasses()
    expect(await of('order-filled')).toHaveLength(2)
    // the trade raised balances, but the fill explains it: no funds-received alert for owner 0 or 1
    expect(await of('funds-received', o(0))).toHaveLength(0)
    expect(await of('funds-received', o(1))).toHaveLength(0)
  })

  it('agent slot empty: a slot that held an agent is revoked', async () => {
    await d.call('agents.revoke', { owner: o(0), slot: 0 })
    await until('agent alert', async () => (await of('agent-slot-empty', o(0))).length === 1)
    expect((await of('agent-slot-empty', o(0)))[0]!.title).toMatch(/slot 0/)
    await twoPasses()
    expect(await of('agent-slot-empty')).toHaveLength(1)
  })

  it('write unresolved without acknowledgement, once; acknowledging the alert is recorded', async () => {
    const j = openJournalFile(join(d.dataDir, JOURNAL_FILE))
    try {
      const signer = `0x${randomBytes(20).toString('hex')}`
      const s = j.record({
        channel: 'trade',
        key: `0x${randomBytes(16).toString('hex')}`,
        network: 'sandbox',
        account: o(2),
        signer,
        actionType: 'settle',
        summary: 'settle 1 USDC',
        nonce: '1',
        body: '{}',
      })
      j.update(s.id, { state: 'sent' })
      j.update(s.id, { state: 'unresolved', advice: 'check balances on the exchange' })
    } finally {
      j.closeNow()
    }
    await until('unresolved alert', async () => (await of('write-unresolved')).length === 1)
    const a = (await of('write-unresolved'))[0]!
    expect(a.message).toMatch(/settle 1 USDC .*check balances on the exchange/)
    await twoPasses()
    expect(await of('write-unresolved')).toHaveLength(1)
    const acked = await d.call<AlertView>('alerts.acknowledge', { id: a.id })
    expect(acked.acknowledgedAt).not.toBeNull()
    await expect(d.call('alerts.acknowledge', { id: '999999' })).rejects.toMatchObject({ code: 'AlertNotFound' })
  })

  it('quiet hours: the alert is recorded and pushed to the panel, without a desktop notification', async () => {
    // every alert so far was pushed once, with a desktop notification
    const all = await list()
    expect(notes.map((n) => n.alertId).sort()).toEqual(all.map((a) => a.id).sort())
    expect(notes.every((n) => n.desktop)).toBe(true)

    const now = new Date()
    const later = new Date(now.getTime() + 60 * 60_000)
    await d.call('alerts.settings.update', { quietHours: { start: hhmm(now), end: hhmm(later) } })
    d.sandbox.trading.deposit(o(2) as `0x${string}`, 1, 100_000_000n)
    await until('quiet deposit alert', async () => (await of('funds-received', o(2))).length === 3)
    const quiet = (await of('funds-received', o(2)))[0]!
    expect(quiet.desktopSuppressed).toBe(true)
    const pushed = notes.find((n) => n.alertId === quiet.id)!
    expect(pushed).toMatchObject({ desktop: false, kind: 'info', level: 'success' })
    expect((await d.call<AlertSettingsView>('alerts.settings.get')).quietHours).toEqual({ start: hhmm(now), end: hhmm(later) })
    await d.call('alerts.settings.update', { quietHours: null })
  })

  it('desktop notifications off: recorded and pushed to the panel without a desktop notification; on again restores them', async () => {
    expect((await d.call<AlertSettingsView>('alerts.settings.update', { desktopNotifications: false })).desktopNotifications).toBe(false)
    d.sandbox.trading.deposit(o(2) as `0x${string}`, 1, 200_000_000n)
    await until('deposit alert with desktop off', async () => (await of('funds-received', o(2))).length === 4)
    const a = (await of('funds-received', o(2)))[0]!
    expect(a.message).toMatch(/^2 USDC deposited to /)
    expect(a.desktopSuppressed).toBe(true)
    expect(notes.find((n) => n.alertId === a.id)).toMatchObject({ desktop: false })
    expect((await d.call<AlertSettingsView>('alerts.settings.update', { desktopNotifications: true })).desktopNotifications).toBe(true)
  })

  it('acknowledge all: every alert not yet acknowledged, once', async () => {
    const open = (await list()).filter((a) => a.acknowledgedAt === null).length
    expect(open).toBeGreaterThan(0)
    expect(await d.call('alerts.acknowledgeAll')).toEqual({ acknowledged: open })
    expect((await list()).every((a) => a.acknowledgedAt !== null)).toBe(true)
    expect(await d.call('alerts.acknowledgeAll')).toEqual({ acknowledged: 0 })
  })

  it('lists newest first, by time and count; refuses bad settings', async () => {
    const all = await list()
    expect(all.map((a) => Number(a.id))).toEqual([...all.map((a) => Number(a.id))].sort((x, y) => y - x))
    expect(await d.call<AlertView[]>('alerts.list', { limit: 2 })).toHaveLength(2)
    expect(await d.call<AlertView[]>('alerts.list', { sinceMs: Date.now() + 60_000 })).toEqual([])
    await expect(d.call('alerts.settings.update', { quietHours: { start: '25:00', end: '07:00' } })).rejects.toMatchObject({
      code: 'InvalidArguments',
    })
    await expect(d.call('alerts.settings.update', { checkIntervalSec: 0 })).rejects.toMatchObject({ code: 'InvalidArguments' })
    // thresholds: percent 0-100 with at most 2 decimals
    await expect(d.call('alerts.settings.update', { ltvThresholdsPct: [80.125] })).rejects.toMatchObject({ code: 'InvalidArguments' })
    await expect(d.call('alerts.settings.update', { ltvThresholdsPct: [101] })).rejects.toMatchObject({ code: 'InvalidArguments' })
    expect((await d.call<AlertSettingsView>('alerts.settings.update', { ltvThresholdsPct: [85.25, 97.5] })).ltvThresholdsPct).toEqual([
      85.25, 97.5,
    ])
    await expect(d.call('alerts.settings.update', { quietHours: { start: '08:00', end: '08:00' } })).rejects.toMatchObject({
      code: 'InvalidAlertSettings',
    })
  })
})
