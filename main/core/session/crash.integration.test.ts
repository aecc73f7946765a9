import { spawn } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Address } from 'viem'
import { startSandbox, type SandboxHandle } from '../../../sandbox/index'
import { devOwner } from '../../../sandbox/scenario/dev-keys'
import { sandboxNetwork, type ResolvedNetwork } from '../config/networks'
import { InfoClient } from '../exchange/info/client'
import { RateScheduler } from '../exchange/scheduler'
import { openJournal } from '../journal'
import { DevVault } from '../../testing/dev-vault'
import { WriteSide } from './write-side'

/**
 * A process killed at each step of a submission, then a restart: the journal entry ends final
 * and the write executed at most once (exactly once when it reached the service), checked
 * against the sandbox's ground truth.
 */
const here = dirname(fileURLToPath(import.meta.url))
let sb: SandboxHandle
const dirs: string[] = []
const O0 = devOwner(0)
const O1 = devOwner(1).address as Address

beforeAll(async () => {
  sb = await startSandbox({ seed: true, blockMs: 300, botIntervalMs: 0, rateLimits: false })
})
afterAll(async () => {
  await sb?.stop()
  for (const d of dirs) rmSync(d, { recursive: true, force: true })
})

function runChild(step: string, dataDir: string): Promise<{ code: number | null; signal: string | null; out: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', join(here, '../../testing/crash-child.ts')], {
      env: {
        ...process.env,
        CRASH_STEP: step,
        DATA_DIR: dataDir,
        TRADING_URL: sb.tradingUrl,
        EARN_URL: sb.earnUrl,
        WS_URL: sb.wsUrl,
        OWNER_KEY: O0.privateKey,
        TO: O1,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    })
    let out = ''
    child.stdout.on('data', (c) => (out += c))
    child.stderr.on('data', (c) => (out += c))
    child.on('error', reject)
    child.on('exit', (code, signal) => resolve({ code, signal, out }))
  })
}

async function restartAndReconcile(dataDir: string) {
  const journal = openJournal(dataDir)
  const vault = new DevVault()
  vault.addOwner(O0.privateKey)
  const network = { ...sandboxNetwork(), tradingUrl: sb.tradingUrl, wsUrl: sb.wsUrl, earnUrl: sb.earnUrl } as ResolvedNetwork
  const info = new InfoClient({ baseUrl: sb.tradingUrl, scheduler: new RateScheduler({ ratePerSec: 1000 }) })
  const session = new WriteSide({
    network,
    journal,
    vault,
    info,
    tradeScheduler: new RateScheduler({ ratePerSec: 1000 }),
    expiryGraceMs: 500,
    reconcileMinAgeMs: 0,
  })
  for (let i = 0; i < 40 && journal.unresolved('sandbox').length > 0; i++) {
    await session.reconcileAll()
    if (journal.unresolved('sandbox').length > 0) await new Promise((r) => setTimeout(r, 250))
  }
  const entries = journal.list({ network: 'sandbox' })
  const unresolved = journal.unresolved('sandbox')
  await session.stop()
  await journal.close()
  return { entries, unresolved }
}

describe('crash at each step of a submission, then restart', () => {
  for (const [step, expectExecuted] of [
    ['afterJournal', 0],
    ['afterSend', 1],
    ['afterResponse', 1],
  ] as const) {
    it(`killed ${step}: the entry ends final and the write ran ${expectExecuted === 1 ? 'exactly once' : 'never'}`, async () => {
      const dataDir = mkdtempSync(join(tmpdir(), `crash-${step}-`))
      dirs.push(dataDir)
      const r = await runChild(step, dataDir)
      expect(r.signal, r.out).toBe('SIGKILL')
      expect(r.out).toMatch(/journaled \d+ 0x[0-9a-f]{32}/)
      const { entries, unresolved } = await restartAndReconcile(dataDir)
      expect(unresolved).toEqual([])
      expect(entries).toHaveLength(1)
      const e = entries[0]!
      const executed = sb.trading.groundTruth().filter((t) => t.cloid === e.key)
      expect(executed).toHaveLength(expectExecuted)
      if (expectExecuted === 0) expect(e).toMatchObject({ state: 'reconciled', finalStatus: 'notsent' })
      else expect(e).toMatchObject({ state: 'reconciled', finalStatus: 'success' })
      // The restart never signed or sent anything new: one nonce, the one journaled.
      expect(e.nonce).toBe(JSON.parse(e.body).nonce)
    })
  }
})
