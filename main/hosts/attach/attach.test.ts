/**
 * One writer per data directory: `desk` attaches to the host running on the data directory and
 * runs its commands through that core; with no host it runs standalone under the lock.
 */
import { spawn } from 'node:child_process'
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { connect } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { devOwner } from '../../../sandbox/scenario/dev-keys'
import type { ConfirmRequest, SubmissionView } from '../../contract/types'
import { sandboxNetwork } from '../../core/config/networks'
import { SettingsStore } from '../../core/config/settings'
import { startDeskOnSandbox, TEST_PASSPHRASE, type DeskOnSandbox } from '../../testing/desk-on-sandbox'
import { discoverGroups } from '../cli/discover'
import type { CliIo } from '../cli/io'
import { openCoreClient } from '../cli/core-client'
import { runCli, type GroupRef } from '../cli/router'
import { deskVersion } from '../cli/version'
import { acquireDataDirLock, attachEndpoint, lockPath, MAX_LINE_BYTES, startAttachServer, type AttachServer, type DataDirLock } from '.'

const ROOT = fileURLToPath(new URL('../../../', import.meta.url))
const DESK_TS = join(ROOT, 'main/hosts/cli/desk.ts')
const O0 = devOwner(0).address
const O1 = devOwner(1).address

let app: DeskOnSandbox
let lock: DataDirLock
let attach: AttachServer
let dir: string
let groups: GroupRef[]
const seen: ConfirmRequest[] = []

function deskChild(args: string[]): Promise<{ code: number | null; out: string; err: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', DESK_TS, ...args], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] })
    let out = ''
    let err = ''
    child.stdout.on('data', (d: Buffer) => (out += d.toString()))
    child.stderr.on('data', (d: Buffer) => (err += d.toString()))
    child.on('error', reject)
    child.on('close', (code) => resolve({ code, out, err }))
  })
}

async function desk(dataDir: string, ...args: string[]): Promise<{ code: number; out: string; err: string }> {
  let out = ''
  let err = ''
  const io: CliIo = {
    stdout: (t) => void (out += t),
    stderr: (t) => void (err += t),
    isInteractive: () => false,
    promptLine: () => Promise.reject(new Error('no tty')),
    promptHidden: () => Promise.reject(new Error('no tty')),
  }
  const code = await runCli([...args, '--data-dir', dataDir, '--passphrase-file', join(dir, 'pass')], groups, io)
  return { code, out, err }
}

/** A raw client of the socket: what it was sent, and whether the server closed it. */
function rawClient(endpoint: string) {
  const socket = connect(endpoint)
  let text = ''
  const closed = new Promise<void>((r) => socket.on('close', () => r()))
  socket.on('data', (d: Buffer) => (text += d.toString()))
  socket.on('error', () => {})
  const lines = () =>
    text
      .split('\n')
      .filter(Boolean)
      .map(
        (l) => JSON.parse(l) as { type: string; id?: string; error?: { code: string }; result?: { ok: boolean; error?: { code: string } } },
      )
  const waitFor = async (pred: (m: ReturnType<typeof lines>[number]) => boolean) => {
    for (let i = 0; i < 200; i++) {
      const hit = lines().find(pred)
      if (hit) return hit
      await new Promise((r) => setTimeout(r, 25))
    }
    throw new Error(`no matching line in ${text.slice(0, 500)}`)
  }
  return { socket, closed, lines, waitFor }
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'desk-attach-'))
  writeFileSync(join(dir, 'pass'), TEST_PASSPHRASE + '\n')
  const dataDir = join(dir, 'app')
  // As the web host's entry does: the lock first, then the core, then the desk socket.
  lock = acquireDataDirLock(dataDir, 'web')
  app = await startDeskOnSandbox({ dataDir })
  attach = await startAttachServer({ core: app.core, dataDir, version: deskVersion() })
  await app.call('vault.create', { passphrase: TEST_PASSPHRASE })
  await app.core.vault.current!.importPrivateKey(devOwner(0).privateKey, 'cash')
  // The recipient is one of the operator's own accounts: the policy allows transfers only to those (or the address book).
  await app.core.vault.current!.importPrivateKey(devOwner(1).privateKey, 'ops')
  // The app's window answers only the app's confirmations (the renderer's filter on origin).
  app.core.events.subscribe((event, payload) => {
    if (event !== 'confirm.request') return
    const req = payload as ConfirmRequest
    seen.push(req)
    if (req.origin === 'app')
      void app.core.dispatch(
        'confirm.respond',
        { id: req.id, approved: true, ...(req.needsPassphrase ? { passphrase: TEST_PASSPHRASE } : {}) },
        { host: 'test' },
      )
  })
  groups = await discoverGroups()
}, 60_000)

afterAll(async () => {
  await attach?.close()
  await app?.close()
  lock?.release()
  rmSync(dir, { recursive: true, force: true })
})

describe('desk attached to the host running on its data directory', () => {
  it(
    'two concurrent writes, one from desk (another process) and one from the app, get distinct nonces in ONE journal',
    { timeout: 120_000 },
    async () => {
      // The app's transfer starts while the desk's is waiting for its confirmation: both in flight at once.
      let appWrite: Promise<unknown> | null = null
      const unsubscribe = app.core.events.subscribe((event, payload) => {
        if (event === 'confirm.request' && (payload as ConfirmRequest).origin === 'cli' && !appWrite) {
          appWrite = app.call('transfer.submit', { from: O0, to: O1, assetId: 1, amount: '10' })
        }
      })
      const r = await deskChild([
        'orders',
        'transfer',
        O0,
        O1,
        'USDC',
        '5',
        '--yes',
        '--json',
        '--data-dir',
        app.dataDir,
        '--passphrase-file',
        join(dir, 'pass'),
      ])
      unsubscribe()
      expect(r.err).toContain('== ') // the desk printed (and answered) its own confirmation
      expect(r.code).toBe(0)
      const deskOut = JSON.parse(r.out) as { outcome: { state: string; cloid: string } }
      expect(deskOut.outcome.state).toBe('accepted')
      expect(appWrite).not.toBeNull()
      await appWrite

      // The desk's request was tagged as the desk's (with its connection), the app's as the app's.
      const desks = seen.filter((s) => s.origin === 'cli')
      expect(desks).toHaveLength(1)
      expect(desks[0]!.client).toMatch(/^[0-9a-f-]{36}$/)
      expect(seen.some((s) => s.origin === 'app')).toBe(true)

      // One journal: the host's, holding both writes with distinct nonces from the one sequence.
      const rows = (await app.call<SubmissionView[]>('journal.query', { actionType: 'transfer' })).filter(
        (s) => s.account.toLowerCase() === O0.toLowerCase(),
      )
      expect(rows).toHaveLength(2)
      expect(rows.map((s) => s.state).sort()).toEqual(['accepted', 'accepted'])
      expect(new Set(rows.map((s) => s.nonce)).size).toBe(2)
      expect(rows.map((s) => s.cloid)).toContain(deskOut.outcome.cloid)
      // The desk never took the data directory: the host still holds it.
      expect(JSON.parse(readFileSync(lockPath(app.dataDir), 'utf8'))).toMatchObject({ pid: process.pid, role: 'web' })
      // Both landed on the exchange once each.
      expect(app.sandbox.trading.groundTruth().filter((t) => rows.some((s) => s.cloid === t.cloid))).toHaveLength(2)
    },
  )

  it('desk status reports attached mode (text and --json) and reads through the host', async () => {
    const j = await desk(app.dataDir, 'status', '--address', O0, '--json')
    expect(j.err).toBe('')
    expect(JSON.parse(j.out)).toMatchObject({ mode: { mode: 'attached', pid: process.pid }, network: 'sandbox' })
    const t = await desk(app.dataDir, 'status', 'show', '--address', O0)
    expect(t.out.split('\n')[0]).toBe(`mode attached to pid ${process.pid} (commands run through that process's core)`)
  })

  it('warns on stderr when the app serving the socket is another version than the desk', async () => {
    await attach.close()
    attach = await startAttachServer({ core: app.core, dataDir: app.dataDir, version: '0.0.1-other' })
    try {
      const j = await desk(app.dataDir, 'status', '--address', O0, '--json')
      expect(j.err).toBe(
        `desk: warning: the running app is version 0.0.1-other, this desk is ${deskVersion()}; use the desk that ships with the app\n`,
      )
      expect(JSON.parse(j.out)).toMatchObject({ mode: { mode: 'attached' } })
    } finally {
      await attach.close()
      attach = await startAttachServer({ core: app.core, dataDir: app.dataDir, version: deskVersion() })
    }
  })

  it('the socket is 0600 and a cli-only channel is refused from the web host', async () => {
    if (process.platform !== 'win32') expect(statSync(attach.endpoint).mode & 0o777).toBe(0o600)
    const refused = await app.core.dispatch('accounts.importKey', { key: { file: join(dir, 'pass') } }, { host: 'web' })
    expect(refused).toMatchObject({ ok: false, error: { code: 'CliOnly' } })
    const exp = await app.core.dispatch('vault.exportKeystore', {}, { host: 'electron' })
    expect(exp).toMatchObject({ ok: false, error: { code: 'CliOnly' } })
    // Through the socket the host is 'cli': the same channel reaches its handler (and its own checks).
    const c = rawClient(attach.endpoint)
    c.socket.write(JSON.stringify({ id: 'k', channel: 'journal.reconcile', args: { passes: 1 } }) + '\n')
    expect(await c.waitFor((m) => m.id === 'k')).toMatchObject({ result: { ok: true } })
    c.socket.destroy()
  })

  it('survives a garbage line and an oversized line: typed error, that connection closed, the host serving on', async () => {
    const unknown = rawClient(attach.endpoint)
    unknown.socket.write(JSON.stringify({ id: 'u', channel: 'no.such', args: 1 }) + '\n')
    expect(await unknown.waitFor((m) => m.id === 'u')).toMatchObject({ result: { ok: false, error: { code: 'UnknownChannel' } } })
    // A desk cannot answer a confirmation it was not sent (the app's, another desk's).
    unknown.socket.write(JSON.stringify({ id: 'c', channel: 'confirm.respond', args: { id: 'someone-elses', approved: true } }) + '\n')
    expect(await unknown.waitFor((m) => m.id === 'c')).toMatchObject({ result: { ok: false, error: { code: 'NotYourConfirmation' } } })
    unknown.socket.write(JSON.stringify({ id: 'u2', channel: 'app.state' }) + '\n')
    expect(await unknown.waitFor((m) => m.id === 'u2')).toMatchObject({ result: { ok: true } }) // still open after a typed error
    unknown.socket.destroy()

    const garbage = rawClient(attach.endpoint)
    garbage.socket.write('{"this is": not json\n')
    expect(await garbage.waitFor((m) => m.type === 'error')).toMatchObject({ error: { code: 'BadMessage' } })
    await garbage.closed

    const big = rawClient(attach.endpoint)
    big.socket.write(Buffer.alloc(MAX_LINE_BYTES + 1024, 0x61))
    expect(await big.waitFor((m) => m.type === 'error')).toMatchObject({ error: { code: 'MessageTooLarge' } })
    await big.closed

    const after = await desk(app.dataDir, 'status', '--address', O0, '--json')
    expect(after.code).toBe(0)
    for (let i = 0; i < 40 && attach.connections() > 0; i++) await new Promise((r) => setTimeout(r, 25))
    expect(attach.connections()).toBe(0)
  })
})

describe('desk standalone: the core in-process under the data directory lock', () => {
  let solo: string
  beforeAll(() => {
    solo = join(dir, 'solo')
    const settings = new SettingsStore(solo)
    settings.saveNetwork({
      ...sandboxNetwork({ trading: Number(new URL(app.sandbox.tradingUrl).port), earn: Number(new URL(app.sandbox.earnUrl).port) }),
      infoRatePerSec: 100,
      tradeRatePerSec: 100,
    })
  })

  it('reports standalone mode and leaves no lock behind', async () => {
    const j = await desk(solo, 'status', '--address', O0, '--json')
    expect(j.err).toBe('')
    expect(JSON.parse(j.out)).toMatchObject({ mode: { mode: 'standalone', pid: process.pid }, network: 'sandbox' })
    expect(existsSync(lockPath(solo))).toBe(false)
  })

  it('holds the lock while it runs: a second desk process and a host starting get DataDirBusy', { timeout: 120_000 }, async () => {
    const client = await openCoreClient(solo)
    try {
      expect(client.mode).toEqual({ mode: 'standalone', pid: process.pid })
      expect(JSON.parse(readFileSync(lockPath(solo), 'utf8'))).toMatchObject({ pid: process.pid, role: 'desk' })
      if (process.platform !== 'win32') expect(statSync(lockPath(solo)).mode & 0o777).toBe(0o600)
      expect(() => acquireDataDirLock(solo, 'web')).toThrow(
        expect.objectContaining({ code: 'DataDirBusy', details: expect.objectContaining({ pid: process.pid, role: 'desk' }) }),
      )
      await expect(openCoreClient(solo)).rejects.toMatchObject({ code: 'DataDirBusy' })
      const second = await deskChild(['networks', 'list', '--data-dir', solo])
      expect(second.code).toBe(1)
      expect(second.err).toMatch(new RegExp(`^desk: .*\`desk\` \\(pid ${process.pid},.*\\[DataDirBusy\\]\\n$`))
    } finally {
      await client.close()
    }
    expect(existsSync(lockPath(solo))).toBe(false)
  })

  it('takes over a stale lock (its process is gone)', async () => {
    const dead = await new Promise<number>((resolve) => {
      const c = spawn(process.execPath, ['-e', '0'])
      c.on('close', () => resolve(c.pid!))
    })
    writeFileSync(lockPath(solo), JSON.stringify({ pid: dead, procStart: null, startedAt: Date.now() - 60_000, role: 'electron' }) + '\n')
    const j = await desk(solo, 'networks', 'list', '--json')
    expect(j.err).toBe('')
    expect(JSON.parse(j.out)).toMatchObject({ selected: 'sandbox' })
    expect(existsSync(lockPath(solo))).toBe(false)
    // Debris (an unreadable lock file from a crash mid-write, long ago) is taken over too.
    writeFileSync(lockPath(solo), '')
    const { utimesSync } = await import('node:fs')
    utimesSync(lockPath(solo), new Date(Date.now() - 60_000), new Date(Date.now() - 60_000))
    expect((await desk(solo, 'networks', 'list')).code).toBe(0)
  })

  it('a data directory path too long for a Unix socket gets a short 0700 directory under the temp dir', () => {
    const long = join(dir, 'x'.repeat(120))
    const endpoint = attachEndpoint(long, 'linux')
    expect(Buffer.byteLength(endpoint)).toBeLessThanOrEqual(100)
    expect(endpoint).toBe(attachEndpoint(long, 'linux'))
    if (process.platform !== 'win32') expect(statSync(join(endpoint, '..')).mode & 0o777).toBe(0o700)
    expect(attachEndpoint(long, 'win32')).toMatch(/^\\\\\.\\pipe\\treasury-desk-[0-9a-f]{24}$/)
    expect(attachEndpoint(join(dir, 'short'), 'linux')).toBe(join(dir, 'short', 'desk.sock'))
  })
})
