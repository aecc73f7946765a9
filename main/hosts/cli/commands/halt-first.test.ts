/**
 * Issue 30.7, halt first, from the desk command line (it calls the app's channels, previewing a
 * settle or repay before submitting it): while the desk is halted, every write command answers
 * WritesHalted (exit 1), never the feature's own refusal of the intent, and `desk orders check`
 * too. In-process against a sandbox, without a running app (the CLI's own core).
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startSandbox, type SandboxHandle } from '../../../../sandbox/index'
import { devOwner } from '../../../../sandbox/scenario/dev-keys'
import { SettingsStore } from '../../../core/config/settings'
import { Vault, vaultPath } from '../../../core/vault'
import { discoverGroups } from '../discover'
import { capturedIo } from '../testing/captured-io'
import { runCli, type GroupRef } from '../router'

const PASS = 'correct horse battery staple 42'
const CASH = devOwner(0).address
const CASH2 = devOwner(2).address
const CREDIT = devOwner(3).address
/** Not in the vault: no owner key here. */
const OTHER = devOwner(1).address
const STRANGER = '0x' + 'ab'.repeat(20)
let sb: SandboxHandle
let dir: string
let groups: GroupRef[]

async function desk(...args: string[]): Promise<{ code: number; out: string; err: string }> {
  const { io, out, err } = capturedIo()
  const code = await runCli([...args, '--data-dir', join(dir, 'data'), '--passphrase-file', join(dir, 'pass')], groups, io)
  return { code, out: out(), err: err() }
}

/** The refusal's code a `--json` command printed ('ok' when it printed none). */
async function refusal(...args: string[]): Promise<string> {
  const r = await desk(...args, '--json', '--yes')
  const doc = JSON.parse(r.out || '{}') as { error?: { code: string } }
  if (doc.error) expect(r.code, args.join(' ')).toBe(1)
  return doc.error?.code ?? 'ok'
}

/** Write commands whose intent the feature refuses (the code, when not halted). */
const INVALID: [refused: string, args: string[]][] = [
  // A settle from a balance account; a repay to one; a repay from a credit account.
  ['InvalidSettle', ['settle', 'preview', CASH, CASH2, 'BTC', '0.01']],
  ['InvalidSettle', ['settle', 'submit', CASH, CASH2, 'BTC', '0.01']],
  ['InvalidMarginAccount', ['repay', 'preview', CASH2, CASH, 'USDC', '1']],
  ['InvalidMarginAccount', ['repay', 'submit', CASH2, CASH, 'USDC', '1']],
  ['InvalidRepay', ['repay', 'submit', CREDIT, CASH, 'USDC', '1']],
  ['TransferToSelf', ['orders', 'transfer', CASH, CASH, 'USDC', '1']],
  ['DestinationNotAllowed', ['orders', 'transfer', CASH, STRANGER, 'USDC', '1']],
  ['DestinationNotAllowed', ['orders', 'withdraw', CASH, 'USDC', '10', '--dst-chain', '1', '--dst-address', STRANGER]],
  ['AccountAlreadyActivated', ['orders', 'activate', CASH, CASH2, 'USDC']],
  ['ExcessPrecision', ['orders', 'check', CASH, 'ETH/USDC', 'buy', '0.1', '0.0000001']],
  ['ExcessPrecision', ['orders', 'place', CASH, 'ETH/USDC', 'buy', '0.1', '0.0000001']],
  ['AgentSlotOccupied', ['agents', 'approve', CASH, '0']],
  ['OwnerKeyMissing', ['agents', 'rotate', OTHER, '1']],
  ['WithdrawAboveMaximum', ['earn', 'create', CASH, 'USDC', '999999999', 'instant', '--preview']],
  ['WithdrawAboveMaximum', ['earn', 'create', CASH, 'USDC', '999999999', 'instant']],
  ['WithdrawalNotFound', ['earn', 'claim', CASH, `withdraw:${CASH.toLowerCase()}:999`]],
]

/** Each command's refusal code by its arguments, and what it should be (every mismatch shows at once). */
async function answers(halted: boolean): Promise<{ got: Record<string, string>; want: Record<string, string> }> {
  const got: Record<string, string> = {}
  const want: Record<string, string> = {}
  for (const [refused, args] of INVALID) {
    got[args.join(' ')] = await refusal(...args)
    want[args.join(' ')] = halted ? 'WritesHalted' : refused
  }
  return { got, want }
}

beforeAll(async () => {
  sb = await startSandbox({ seed: true, blockMs: 20, botIntervalMs: 0, rateLimits: false })
  dir = mkdtempSync(join(tmpdir(), 'desk-halt-first-'))
  writeFileSync(join(dir, 'pass'), PASS + '\n')
  const data = join(dir, 'data')
  const settings = new SettingsStore(data)
  const s = settings.load()
  settings.save({
    ...s,
    networks: s.networks.map((n) =>
      n.name === 'sandbox'
        ? { ...n, tradingUrl: sb.tradingUrl, wsUrl: sb.wsUrl, earnUrl: sb.earnUrl, infoRatePerSec: 100, tradeRatePerSec: 100 }
        : n,
    ),
  })
  const v = await Vault.create({ path: vaultPath(data), passphrase: PASS, scrypt: { n: 16384, r: 8, p: 1 }, autoLockMs: null })
  await v.importPrivateKey(devOwner(0).privateKey, 'cash')
  await v.importPrivateKey(devOwner(2).privateKey, 'cash 2')
  await v.importPrivateKey(devOwner(3).privateKey, 'credit')
  v.lock()
  groups = await discoverGroups()
})

afterAll(async () => {
  await sb?.stop()
  rmSync(dir, { recursive: true, force: true })
})

describe('desk while halted: WritesHalted before the feature validation', () => {
  it('not halted, each command is refused by the feature for its own reason', async () => {
    const executed = sb.trading.groundTruth().length
    const { got, want } = await answers(false)
    expect(got).toEqual(want)
    expect(sb.trading.groundTruth().length).toBe(executed)
  })

  it('halted, every one answers WritesHalted (exit 1); resume lifts it', async () => {
    expect((await desk('halt', '--json', '--yes')).code).toBe(0)
    try {
      const { got, want } = await answers(true)
      expect(got).toEqual(want)
      // A cancel stays open while halted: it is what clears the book.
      expect(await refusal('orders', 'emergency-cancel', CASH)).toBe('ok')
    } finally {
      expect((await desk('resume', '--json')).code).toBe(0)
    }
    expect(await refusal('settle', 'preview', CASH, CASH2, 'BTC', '0.01')).toBe('InvalidSettle')
  })
})
