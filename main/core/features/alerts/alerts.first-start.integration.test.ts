/**
 * Alerts compare against the state at start: balances and deposit records already there when
 * the desk started (or changed while it was closed) are never announced as funds received; a
 * deposit made while it runs still is. The stored state below stands for the real start-up: the
 * in-process sandbox is seeded after alerts were armed, and an earlier run stored an older
 * (lower) balance baseline.
 */
import { join } from 'node:path'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { accepted, actionSender } from '../../../../sandbox/scenario/signed-actions'
import { devOwner } from '../../../../sandbox/scenario/dev-keys'
import type { AlertView } from '../../../contract/types'
import { JOURNAL_FILE, openJournalFile } from '../../journal'
import type { TradeAction } from '../../wire/actions'
import { startDeskOnSandbox, TEST_PASSPHRASE, type DeskOnSandbox } from '../../../testing/desk-on-sandbox'
import { DEFAULT_ALERT_SETTINGS } from './alert-settings'
import { AlertService } from './alerts.service'

describe('first start: nothing already there is announced as new', () => {
  let d: DeskOnSandbox
  let dataDir: string
  const o = (i: number) => devOwner(i).address
  const funds = async () => (await d.call<AlertView[]>('alerts.list', {})).filter((a) => a.kind === 'funds-received')
  const until = async (what: string, pred: () => Promise<boolean>, ms = 20_000) => {
    const end = Date.now() + ms
    while (Date.now() < end) {
      if (await pred()) return
      await new Promise((r) => setTimeout(r, 150))
    }
    throw new Error(`timed out waiting for ${what}`)
  }
  // The timer's full passes, counted: the test waits for passes, not for a length of time that a
  // loaded machine may not fit them in. Passes run one at a time, so they end in the order asked.
  const passAskedAt: number[] = []
  let passesEnded = 0
  const evaluate = AlertService.prototype.evaluate
  vi.spyOn(AlertService.prototype, 'evaluate').mockImplementation(function (this: AlertService) {
    passAskedAt.push(Date.now())
    return evaluate.call(this).finally(() => passesEnded++)
  })
  /** Waits until `n` full passes asked for at `from` or later have ended. */
  const passesFrom = (from: number, n = 1) =>
    until(`${n} evaluation pass(es)`, async () => passAskedAt.filter((t, i) => t >= from && i < passesEnded).length >= n)

  beforeAll(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'desk-alerts-start-'))
    const j = openJournalFile(join(dataDir, JOURNAL_FILE))
    try {
      // armed an hour ago (first run), before the sandbox seeded its deposits
      j.alerts.saveSettingsJson(JSON.stringify({ ...DEFAULT_ALERT_SETTINGS, checkIntervalSec: 1, armedSinceMs: Date.now() - 3600_000 }))
      // an earlier run saw owner 0 with nothing: its balances arrived while the desk was closed
      j.alerts.setState('sandbox', `balances:${o(0).toLowerCase()}`, '{}')
    } finally {
      j.closeNow()
    }
    d = await startDeskOnSandbox({ alerts: true, dataDir })
    await d.call('vault.create', { passphrase: TEST_PASSPHRASE })
    await d.call('accounts.importSandboxKeys')
  }, 60_000)
  afterAll(async () => {
    await d?.close()
    rmSync(dataDir, { recursive: true, force: true })
  })

  it('raises no funds-received alert for the balances and deposits present at start, even after trading moves them', async () => {
    // a trade between owners 0 and 1 raises their balances (the fill explains it) and makes the desk read their deposits
    const order = (side: 'bid' | 'ask', tif: 'gtc' | 'ioc'): TradeAction =>
      ({ type: 'order', market_id: '1', side, order_type: 'limit', tif, price: '64000', quantity: '0.01' }) as TradeAction
    await passesFrom(Date.now(), 2) // the first passes over the imported accounts take the baseline
    expect(accepted(await actionSender(d.sandbox.trading, devOwner(1).privateKey, 'fs1').send(order('bid', 'gtc')))).toBe(true)
    expect(accepted(await actionSender(d.sandbox.trading, devOwner(0).privateKey, 'fs0').send(order('ask', 'ioc')))).toBe(true)
    await until(
      'the fill alerts',
      async () => (await d.call<AlertView[]>('alerts.list', {})).filter((a) => a.kind === 'order-filled').length >= 2,
    )
    await passesFrom(Date.now() + 2_100) // a full pass past the 2 s grace
    expect((await funds()).map((a) => `${a.title}: ${a.message}`)).toEqual([])
  }, 60_000)

  it('still announces a deposit made while the desk runs', async () => {
    d.sandbox.trading.deposit(o(2) as `0x${string}`, 1, 12_345_000_000n)
    await until('the deposit alert', async () => (await funds()).length === 1)
    expect((await funds())[0]!.message).toMatch(/^123\.45 USDC deposited to /)
  }, 30_000)
})
