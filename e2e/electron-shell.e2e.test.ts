import { spawnSync } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { channelNames } from '../main/contract/channels'
import { sandboxNetwork } from '../main/core/config/networks'
import { SettingsStore } from '../main/core/config/settings'

const root = fileURLToPath(new URL('..', import.meta.url))

interface StubReport {
  calls: string[]
  windows: Array<{ webPreferences: Record<string, unknown> }>
  schemes: Array<{ scheme: string; privileges: Record<string, boolean> }>
  protocolHandlers: string[]
  ipcHandlers: string[]
  appEvents: string[]
  loadedUrl: string
  error?: string
  checks: Record<string, unknown> & {
    channelCoverage: Record<string, string>
    page: { status: number; csp: string; type: string }
  }
}

describe('Electron main entry under a stub electron module', () => {
  let report: StubReport
  let dir: string

  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'desk-stub-'))
    const reportPath = join(dir, 'report.json')
    // The app starts its in-process sandbox at launch: let the OS pick its ports here.
    new SettingsStore(join(dir, 'userdata')).saveNetwork(sandboxNetwork({ trading: 0, earn: 0 }))
    const run = spawnSync(process.execPath, ['--import', join(root, 'e2e/stub-electron/register.mjs'), join(root, 'out/main/index.js')], {
      env: {
        ...process.env,
        STUB_ELECTRON_REPORT: reportPath,
        STUB_USER_DATA: join(dir, 'userdata'),
        STUB_CHANNELS: JSON.stringify(channelNames),
        TREASURY_DESK_DATA_DIR: join(dir, 'userdata'),
      },
      encoding: 'utf8',
      timeout: 60_000,
    })
    if (run.status !== 0) throw new Error(`stub run failed (${run.status}): ${run.stderr}`)
    report = JSON.parse(readFileSync(reportPath, 'utf8')) as StubReport
    if (report.error) throw new Error(report.error)
  })
  afterAll(() => rmSync(dir, { recursive: true, force: true }))

  it('creates the window with every hardening preference', () => {
    expect(report.windows).toHaveLength(1)
    const prefs = report.windows[0]!.webPreferences
    expect(prefs).toMatchObject({
      contextIsolation: true,
      sandbox: true,
      nodeIntegration: false,
      webSecurity: true,
      webviewTag: false,
      allowRunningInsecureContent: false,
    })
    expect(String(prefs.preload)).toMatch(/preload[\\/]index\.cjs$/)
    expect(report.calls).toContain('app.enableSandbox')
  })

  it('serves the app from its own protocol with a strict CSP and no path escape', () => {
    expect(report.loadedUrl).toBe('app://desk/index.html')
    expect(report.schemes.map((s) => s.scheme)).toEqual(['app'])
    expect(report.protocolHandlers).toEqual(['app'])
    const { page } = report.checks
    expect(page.status).toBe(200)
    expect(page.type).toMatch(/text\/html/)
    expect(page.csp).toContain("default-src 'self'")
    expect(page.csp).toContain("script-src 'self'")
    expect(page.csp).not.toMatch(/unsafe-eval|https?:/)
    expect(report.checks.traversalStatus).toBe(404)
  })

  it('denies new windows, navigation, redirects, webviews, every permission and foreign downloads', () => {
    expect(report.appEvents).toContain('web-contents-created')
    expect(report.checks.windowOpen).toEqual({ action: 'deny' })
    expect(report.checks.navigationPrevented).toBe(true)
    expect(report.checks.redirectPrevented).toBe(true)
    expect(report.checks.webviewPrevented).toBe(true)
    expect(report.checks.permissionGranted).toBe(false)
    expect(report.checks.permissionCheck).toBe(false)
    // Downloads: only the app's own exports (blob URLs of its page) go through.
    expect(report.checks.downloadPrevented).toEqual({ appExport: false, remote: true, otherBlob: true })
  })

  it('takes the single-instance lock and holds quit for an orderly shutdown', () => {
    expect(report.calls).toContain('app.requestSingleInstanceLock')
    expect(report.appEvents).toEqual(expect.arrayContaining(['second-instance', 'before-quit', 'window-all-closed']))
    expect(report.checks.quitHeld).toBe(true)
    expect(report.checks.quitTimedOut).toBeUndefined()
    expect(report.calls.at(-1)).toBe('app.quit')
  })

  it('auto-locks on OS lock and suspend', () => {
    expect(report.calls).toEqual(expect.arrayContaining(['powerMonitor.on "lock-screen"', 'powerMonitor.on "suspend"']))
  })

  it('refuses IPC from foreign frames and answers bad calls with typed errors', () => {
    expect(report.ipcHandlers).toEqual(['desk:invoke'])
    for (const k of ['foreignFrame', 'subFrame', 'otherContents']) {
      expect(report.checks[k], k).toEqual({ ok: false, error: expect.objectContaining({ code: 'ForbiddenSender' }) })
    }
    expect(report.checks.unknownChannel).toEqual({ ok: false, error: expect.objectContaining({ code: 'UnknownChannel' }) })
    expect(report.checks.wrongArgs).toEqual({ ok: false, error: expect.objectContaining({ code: 'InvalidArguments' }) })
    expect(report.checks.appState).toEqual({ ok: true, value: expect.objectContaining({ host: 'electron' }) })
  })

  it('has a handler for every contract channel', () => {
    const coverage = report.checks.channelCoverage
    expect(Object.keys(coverage).sort()).toEqual([...channelNames].sort())
    for (const [name, code] of Object.entries(coverage)) expect(code, name).not.toBe('UnknownChannel')
  })

  it('runs the bundled desk CLI on its own runtime with --desk-cli: no window, its output and exit code', () => {
    const cliDir = mkdtempSync(join(tmpdir(), 'desk-stub-cli-'))
    try {
      const env = {
        ...process.env,
        STUB_ELECTRON_REPORT: join(cliDir, 'report.json'),
        STUB_USER_DATA: join(cliDir, 'userdata'),
        STUB_CHANNELS: '[]',
      }
      const entry = [join(root, 'out/main/index.js'), '--desk-cli']
      const help = spawnSync(process.execPath, ['--import', join(root, 'e2e/stub-electron/register.mjs'), ...entry, '--help'], {
        env,
        encoding: 'utf8',
        timeout: 60_000,
      })
      expect(help.status, help.stderr).toBe(0)
      expect(help.stdout).toMatch(/usage: desk <group> <command>/)
      const cliReport = JSON.parse(readFileSync(join(cliDir, 'report.json'), 'utf8')) as {
        calls: string[]
        windows: unknown[]
        ipcHandlers: string[]
      }
      expect(cliReport.windows).toEqual([])
      expect(cliReport.ipcHandlers).toEqual([])
      expect(cliReport.calls).not.toContain('app.requestSingleInstanceLock')
      expect(cliReport.calls).toContain('app.exit 0')
      expect(cliReport.calls).toContain('app.disableHardwareAcceleration') // no GPU: runs without a display
      const bad = spawnSync(process.execPath, ['--import', join(root, 'e2e/stub-electron/register.mjs'), ...entry, 'nosuchgroup'], {
        env,
        encoding: 'utf8',
        timeout: 60_000,
      })
      expect(bad.status).toBe(2)
      expect(bad.stderr).toMatch(/\[Usage\]/)
    } finally {
      rmSync(cliDir, { recursive: true, force: true })
    }
  })
})
