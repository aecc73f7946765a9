/**
 * Every text the core hands an operator reads like a treasury tool (issue 24, item 3): the
 * notifications and alerts of every rule, the overview's own notifications, the report
 * currency options and the earn queue labels, driven on the sandbox. None may carry a raw
 * number above 999 without separators, an ISO time stamp, a duration in milliseconds or an
 * internal id (a full address, a cloid, an earn operation id).
 */
import { randomBytes } from 'node:crypto'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { accepted, actionSender } from '../../../../sandbox/scenario/signed-actions'
import { devOwner } from '../../../../sandbox/scenario/dev-keys'
import { formatCurrencyOption, formatEarnWithdrawal } from '../../../contract/format'
import type { AlertView, EarnOverviewView, NotificationEvent, ReportCurrencyView } from '../../../contract/types'
import { JOURNAL_FILE, openJournalFile } from '../../journal'
import type { TradeAction } from '../../wire/actions'
import { startDeskOnSandbox, TEST_PASSPHRASE, type DeskOnSandbox } from '../../../testing/desk-on-sandbox'

/** What an operator must never read; each entry names the defect. Exported for reuse by screen tests. */
export function textDefects(text: string): string[] {
  const out: string[] = []
  if (/\d{4}-\d{2}-\d{2}T\d{2}:\d{2}/.test(text)) out.push('ISO time stamp')
  if (/\d\s*ms\b|\bms\b/.test(text)) out.push('milliseconds')
  if (/0x[0-9a-fA-F]{12,}/.test(text)) out.push('full address or cloid')
  if (/\b[a-z_]+:0x[0-9a-fA-F]+:\d+/.test(text)) out.push('earn operation id')
  // times in the shared format and order ids ("oid 123456") are not amounts
  const rest = text
    .replace(/\d{4}-\d{2}-\d{2}[ T]\d{2}:\d{2}:\d{2}/g, '')
    .replace(/\boid \d+/g, '')
    .replace(/0x[0-9a-fA-F]{4}…[0-9a-fA-F]{4}/g, '')
  if (/(?<![\d.,])\d{4,}/.test(rest)) out.push('number above 999 without separators')
  return out
}

describe('textDefects', () => {
  it('rejects what read like a debugger and accepts the shared format', () => {
    expect(textDefects('Available 721.45 USD of 10000 USD.')).toEqual(['number above 999 without separators'])
    expect(textDefects('halted since 2026-11-25T23:40:30.179Z')).toEqual(['ISO time stamp'])
    expect(textDefects('cooling-off 60000 ms')).toEqual(['milliseconds', 'number above 999 without separators'])
    expect(textDefects('scheduled withdrawal withdraw:0x9bf0aa11bb22cc33dd44ee55ff66aa77bb88a745:0')).toEqual([
      'full address or cloid',
      'earn operation id',
    ])
    expect(
      textDefects('$721.45 available of a $10,000.00 credit line; created 2026-11-25 08:00:00 (Treasury (0x9bf0…a745), oid 123456)'),
    ).toEqual([])
  })
})

describe('every notification, alert and option text the core produces', () => {
  let d: DeskOnSandbox
  const notes: NotificationEvent[] = []
  const o = (i: number) => devOwner(i).address
  const alerts = () => d.call<AlertView[]>('alerts.list', {})
  const until = async (what: string, pred: () => Promise<boolean>, ms = 25_000) => {
    const end = Date.now() + ms
    while (Date.now() < end) {
      if (await pred()) return
      await new Promise((r) => setTimeout(r, 150))
    }
    throw new Error(`timed out waiting for ${what}`)
  }
  const kinds = async () => new Set((await alerts()).map((a) => a.kind))

  beforeAll(async () => {
    d = await startDeskOnSandbox({ alerts: true, overviewRefreshMs: 500 })
    d.core.events.subscribe((event, payload) => {
      if (event === 'notify') notes.push(payload as NotificationEvent)
    })
    await d.call('vault.create', { passphrase: TEST_PASSPHRASE })
    await d.call('accounts.importSandboxKeys')
    await d.call('overview.get', {}).catch(() => {})
    await d.call('alerts.settings.update', { checkIntervalSec: 1, ltvThresholdsPct: [1] })
  }, 60_000)
  afterAll(async () => {
    await d?.close()
  })

  it('has none of the defects, for every rule', async () => {
    // seeded: a claimable earn withdrawal (earn-claimable), a credit line in use (ltv; the critical credit account alerts once, as ltv)
    await until('earn and ltv alerts', async () => (await kinds()).has('earn-claimable') && (await kinds()).has('ltv'))
    // funds received: a deposit; order filled: a trade; agent slot empty: a revoke; write unresolved: a journaled write
    d.sandbox.trading.deposit(o(2) as `0x${string}`, 1, 1_234_567_000_000n)
    const order = (side: 'bid' | 'ask', tif: 'gtc' | 'ioc'): TradeAction =>
      ({ type: 'order', market_id: '1', side, order_type: 'limit', tif, price: '64000', quantity: '0.01' }) as TradeAction
    expect(accepted(await actionSender(d.sandbox.trading, devOwner(1).privateKey, 't1').send(order('bid', 'gtc')))).toBe(true)
    expect(accepted(await actionSender(d.sandbox.trading, devOwner(0).privateKey, 't0').send(order('ask', 'ioc')))).toBe(true)
    const stop = d.autoConfirm()
    try {
      await d.call('agents.revoke', { owner: o(0), slot: 0 })
    } finally {
      stop()
    }
    const j = openJournalFile(join(d.dataDir, JOURNAL_FILE))
    try {
      const s = j.record({
        channel: 'trade',
        key: `0x${randomBytes(16).toString('hex')}`,
        network: 'sandbox',
        account: o(2),
        signer: `0x${randomBytes(20).toString('hex')}`,
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
    await until('an alert of every rule', async () => (await kinds()).size === 6)
    await until('the fill notifications', async () => notes.filter((n) => n.kind === 'fill' && !('alertId' in n)).length >= 2)

    const texts: string[] = []
    for (const a of await alerts()) texts.push(a.title, a.message)
    for (const n of notes) texts.push(n.title, n.message)
    const now = Date.now()
    for (const c of await d.call<ReportCurrencyView[]>('reports.currencies')) texts.push(formatCurrencyOption(c, now))
    const earn = await d.call<EarnOverviewView>('earn.overview', { account: o(1) })
    expect(earn.withdrawals.length).toBeGreaterThan(0)
    for (const w of earn.withdrawals) texts.push(formatEarnWithdrawal(w))

    const bad = texts.map((t) => ({ t, defects: textDefects(t) })).filter((x) => x.defects.length > 0)
    expect(bad).toEqual([])
    // One alert per condition (issue 31): the credit line past its limit is the ltv alert only, never a second
    // "Credit health critical" notification beside it.
    expect(notes.filter((n) => n.kind === 'health' && !('alertId' in n) && /critical/.test(n.title))).toEqual([])
    expect(texts.length).toBeGreaterThan(12)
  }, 90_000)
})
