// State survives a restart when the sandbox runs with a data directory.
import { mkdtemp, readdir, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { earnSigner } from '../earn/earn-signer'
import { devOwner } from '../scenario/dev-keys'
import { postJson, startTestSandbox } from '../testing/conformance-harness'

const dirs: string[] = []
afterAll(async () => {
  for (const d of dirs) await rm(d, { recursive: true, force: true })
})

describe('restart persistence', () => {
  it('keeps earn balances, withdrawals and nonces; does not seed twice', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'sandbox-data-'))
    dirs.push(dir)
    const first = await startTestSandbox({ seed: true, dataDir: dir })
    const url = `${first.earnUrl}/api/v3/earn`
    const cfg = (await postJson(url, { type: 'config' })).body.data
    const o2 = earnSigner(devOwner(2).privateKey, { domain: cfg.eip712_domain, chainId: cfg.native_chain_id })
    const created = await postJson(
      url,
      await o2.create({
        user_nonce: 0,
        withdraw_type: 'scheduled',
        asset_id: 1,
        amount: '100000000',
        deadline_unix_ms: Date.now() + 60_000,
      }),
    )
    expect(created.body.code).toBe(0)
    const before = (await postJson(url, { type: 'account', user_address: o2.address })).body.data
    const depositsBefore = (await postJson(url, { type: 'deposits', user_address: devOwner(0).address })).body.data.items.length
    await first.stop()
    expect((await readdir(dir)).sort()).toEqual(expect.arrayContaining(['earn.json', 'sandbox.json']))

    const second = await startTestSandbox({ seed: true, dataDir: dir })
    try {
      const url2 = `${second.earnUrl}/api/v3/earn`
      const after = (await postJson(url2, { type: 'account', user_address: o2.address })).body.data
      expect(after.next_user_nonce).toBe(1)
      expect(after.balances.find((b: any) => b.asset_id === 1).active_withdraw_operation_id).toBe(created.body.data.operation_id)
      expect(after.balances).toEqual(before.balances)
      expect((await postJson(url2, { type: 'deposits', user_address: devOwner(0).address })).body.data.items.length).toBe(depositsBefore)
      // the trading side is there too (restored, or re-seeded when the service keeps no snapshot)
      const bal = await postJson(`${second.tradingUrl}/info`, { type: 'openOrders', user: devOwner(0).address, market_id: -1 })
      expect(bal.status).toBe(200)
    } finally {
      await second.stop()
    }
  })
})
