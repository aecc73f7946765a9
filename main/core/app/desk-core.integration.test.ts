import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type {
  AccountView,
  AppState,
  ConfirmRequest,
  EarnOverviewView,
  OverviewView,
  PreviewView,
  SubmissionView,
  WriteOutcome,
} from '../../contract/types'
import { devOwner } from '../../../sandbox/scenario/dev-keys'
import { parseDecimal } from '../money/decimal'
import { startDeskOnSandbox, TEST_PASSPHRASE, type DeskOnSandbox } from '../../testing/desk-on-sandbox'

describe('desk core through the contract, against the sandbox', () => {
  let d: DeskOnSandbox
  const streamStatuses: { connected: boolean }[] = []
  beforeAll(async () => {
    d = await startDeskOnSandbox()
    d.core.events.subscribe((event, payload) => {
      if (event === 'stream.status') streamStatuses.push(payload as { connected: boolean })
    })
  })
  afterAll(async () => {
    await d?.close()
  })

  it('starts on the sandbox network with no vault', async () => {
    const s = await d.call<AppState>('app.state')
    expect(s.network).toMatchObject({ name: 'sandbox', kind: 'sandbox', chainId: 424242, configured: true })
    expect(s.vault).toMatchObject({ exists: false, unlocked: false })
    await expect(d.call('accounts.generate', { label: 'x' })).rejects.toMatchObject({ code: 'VaultMissing' })
  })

  it('creates the vault, refuses a weak passphrase, and imports the sandbox development owners', async () => {
    await expect(d.call('vault.create', { passphrase: 'short' })).rejects.toMatchObject({ code: expect.stringMatching(/Passphrase/) })
    const st = await d.call<{ exists: boolean; unlocked: boolean }>('vault.create', { passphrase: TEST_PASSPHRASE })
    expect(st).toMatchObject({ exists: true, unlocked: true })
    const imported = await d.call<AccountView[]>('accounts.importSandboxKeys')
    expect(imported).toHaveLength(6)
    expect(imported[0]).toMatchObject({ label: 'Treasury main', hasKey: true })
  })

  it('shows every account in the overview with exact balances and credit lines', async () => {
    const ov = await d.call<OverviewView>('portfolio.overview')
    expect(ov.rows).toHaveLength(6)
    const main = ov.rows.find((r) => r.account.label === 'Treasury main')!
    expect(main.account.kind).toBe('balance')
    expect(main.available.length).toBeGreaterThan(0)
    const credit = ov.rows.find((r) => r.account.label === 'Credit desk')!
    expect(credit.account.kind).toBe('credit')
    expect(credit.credit?.creditUsd).toBe('50000')
    // Agent slots are read once in the background; the seeded owner 0 has agents in slots 0 and 2.
    await expect
      .poll(
        async () => (await d.call<OverviewView>('portfolio.overview')).rows.find((r) => r.account.label === 'Treasury main')?.agentsInUse,
        { timeout: 10_000 },
      )
      .toBe(2)
  })

  it('previews and submits a settle that ends accepted, with both balances moved', async () => {
    const stop = d.autoConfirm()
    const requests: ConfirmRequest[] = []
    const off = d.core.events.subscribe((event, payload) => {
      if (event === 'confirm.request') requests.push(payload as ConfirmRequest)
    })
    try {
      const creditAccount = devOwner(3).address
      const cashAccount = devOwner(0).address
      const preview = await d.call<PreviewView>('settle.preview', { creditAccount, cashAccount, assetId: 3, amount: '0.1' })
      expect(preview.action).toMatchObject({ type: 'settle', asset_id: '3', amount: '10000000', cash_account: cashAccount })
      expect(preview.effects.map((e) => [e.before, e.after])).toEqual([
        ['0.3', '0.2'],
        ['2.5', '2.6'],
      ])
      const out = await d.call<WriteOutcome>('settle.submit', { creditAccount, cashAccount, assetId: 3, amount: '0.1' })
      expect(out.submission).toMatchObject({ actionType: 'settle', state: 'accepted' })
      const journal = await d.call<SubmissionView[]>('journal.query', { actionType: 'settle' })
      expect(journal[0]?.cloid).toBe(out.submission.cloid)
      expect(journal[0]?.history.map((h) => h.state)).toEqual(['prepared', 'sent', 'accepted'])
      // The confirmation named the network and both accounts by name and address, in units, never atoms.
      const text = [requests[0]?.title, ...(requests[0]?.summary ?? [])].join('\n')
      expect(text).toMatch(/^Network: sandbox \(chain \d+\)$/m)
      expect(text).toContain(`Credit desk (${creditAccount})`)
      expect(text).toContain(`Treasury main (${cashAccount})`)
      expect(text).toContain('0.1 BTC')
      expect(text).not.toMatch(/atoms/)
      // The dialog's structured fields: network, signing account and counterparty by name and address, amount in units, checks passed, the exact action.
      expect(requests[0]?.details).toMatchObject({
        network: { name: 'sandbox', kind: 'sandbox' },
        account: { name: 'Credit desk', address: creditAccount.toLowerCase() },
        counterparty: { name: 'Treasury main', address: cashAccount.toLowerCase() },
        amount: { units: '0.1', symbol: 'BTC' },
        policyChecks: ['Writes are not halted on sandbox'],
        action: { type: 'settle', asset_id: '3', amount: '10000000', cash_account: cashAccount.toLowerCase() },
      })
    } finally {
      stop()
      off()
    }
  })

  it('pushes live overview updates from the streams after a write, with the stream status', async () => {
    const stop = d.autoConfirm()
    const seen: OverviewView[] = []
    const off = d.core.events.subscribe((event, payload) => {
      if (event === 'state.overview') seen.push(payload as OverviewView)
    })
    try {
      const usdc = (ov: OverviewView, label: string) =>
        ov.rows.find((r) => r.account.label === label)?.available.find((b) => b.assetId === 1)?.available
      const before = usdc(await d.call<OverviewView>('portfolio.overview'), 'Payments') ?? '0'
      await d.call<WriteOutcome>('transfer.submit', { from: devOwner(0).address, to: devOwner(2).address, assetId: 1, amount: '12.5' })
      const expected = parseDecimal(before, 8) + parseDecimal('12.5', 8)
      await expect
        .poll(() => seen.some((ov) => usdc(ov, 'Payments') !== undefined && parseDecimal(usdc(ov, 'Payments')!, 8) === expected), {
          timeout: 15_000,
          interval: 100,
        })
        .toBe(true)
      expect(streamStatuses.some((st) => st.connected)).toBe(true)
    } finally {
      off()
      stop()
    }
  })

  it('announces a dropped stream at once and its recovery', async () => {
    await expect.poll(() => streamStatuses.some((st) => st.connected), { timeout: 10_000 }).toBe(true)
    const before = streamStatuses.length
    d.sandbox.ws.disconnectAll()
    await expect.poll(() => streamStatuses.slice(before).some((st) => !st.connected), { timeout: 5_000, interval: 20 }).toBe(true)
    const dropped = streamStatuses.slice(before).findIndex((st) => !st.connected)
    await expect.poll(() => streamStatuses.slice(before + dropped).some((st) => st.connected), { timeout: 15_000, interval: 50 }).toBe(true)
  })

  it('a transfer confirmation shows the counterparty by name, the amount with its USD value and the policy checks passed', async () => {
    const stop = d.autoConfirm()
    const requests: ConfirmRequest[] = []
    const off = d.core.events.subscribe((event, payload) => {
      if (event === 'confirm.request') requests.push(payload as ConfirmRequest)
    })
    try {
      const from = devOwner(0).address
      const to = devOwner(1).address
      await d.call<WriteOutcome>('transfer.submit', { from, to, assetId: 1, amount: '5' })
      expect(requests.at(-1)?.details).toMatchObject({
        account: { name: 'Treasury main' },
        counterparty: { name: 'Treasury ops', address: to.toLowerCase() },
        amount: { units: '5', symbol: 'USDC', usd: expect.stringMatching(/^[0-9]+(\.[0-9]+)?$/) },
        action: { type: 'transfer', to: to.toLowerCase() },
      })
      expect(requests.at(-1)?.details?.policyChecks).toContain(
        'Recipient is one of your accounts or an address-book entry past its cooling-off',
      )
    } finally {
      stop()
      off()
    }
  })

  it('rejects excess precision before signing', async () => {
    await expect(
      d.call('settle.preview', { creditAccount: devOwner(3).address, cashAccount: devOwner(0).address, assetId: 3, amount: '0.000000001' }),
    ).rejects.toMatchObject({ code: 'ExcessPrecision' })
  })

  it('shows the earn queue with the seeded queued and claimable withdrawals', async () => {
    const e = await d.call<EarnOverviewView>('earn.overview', { account: devOwner(1).address })
    expect(e.withdrawals.some((w) => w.canClaim)).toBe(true)
    const e0 = await d.call<EarnOverviewView>('earn.overview', { account: devOwner(0).address })
    expect(e0.withdrawals.some((w) => w.status === 'queued' && w.canCancel)).toBe(true)
  })

  it('answers a declined confirmation with a typed error and signs nothing', async () => {
    const stop = d.core.events.subscribe((event, payload) => {
      if (event === 'confirm.request')
        void d.core.dispatch('confirm.respond', { id: (payload as { id: string }).id, approved: false }, { host: 'test' })
    })
    try {
      const before = (await d.call<SubmissionView[]>('journal.query', {})).length
      await expect(
        d.call('repay.submit', { cashAccount: devOwner(1).address, creditAccount: devOwner(3).address, assetId: 1, amount: '10' }),
      ).rejects.toMatchObject({ code: 'ConfirmationDeclined' })
      expect((await d.call<SubmissionView[]>('journal.query', {})).length).toBe(before)
    } finally {
      stop()
    }
  })
})
