import { afterEach, describe, expect, it } from 'vitest'
import { onDispatch, type DispatchEvent } from '../exchange/scheduler'
import { startDeskOnSandbox, TEST_PASSPHRASE, type DeskOnSandbox } from '../../testing/desk-on-sandbox'

/**
 * Closing the core must not wait for reads still queued on the /info budget: at 200 accounts
 * and 1 request/s, the alerts' full pass, the fills sweep and the overview queue minutes of
 * reads, and close() awaited the passes that were waiting on them (the scale bench's browser
 * phase sat 20-30 minutes in close). Queued requests are refused at once; only reads already
 * sent finish.
 */
describe('core close with reads queued on the /info budget', () => {
  let d: DeskOnSandbox | undefined
  afterEach(async () => {
    await d?.sandbox.stop()
    d = undefined
  })

  it('resolves without sending what was queued, and refuses the queued reads', async () => {
    // One /info request per 10 s (the lowest rate a network may set): after the first, every read waits in the scheduler's queue.
    d = await startDeskOnSandbox({ ratePerSec: 0.1, alerts: true })
    await d.call('vault.create', { passphrase: TEST_PASSPHRASE })
    await d.call('accounts.importSandboxKeys')
    const sent: DispatchEvent[] = []
    const off = onDispatch((e) => sent.push(e))
    // An overview the operator asked for waits on the budget; so does the alerts' first pass (its timer fires after 1 s).
    const overview = d.core.dispatch('portfolio.overview', undefined, { host: 'test' })
    await new Promise((r) => setTimeout(r, 1_500))
    const sentBeforeClose = sent.length
    await d.core.close()
    const closedAt = sent.length
    off()
    // The operator's read was refused (never sent), not left hanging.
    const r = await overview
    expect(r.ok).toBe(false)
    // Nothing queued left after close began: what went out went before it.
    expect(closedAt).toBe(sentBeforeClose)
    expect(sentBeforeClose).toBeLessThanOrEqual(2)
  })
})
