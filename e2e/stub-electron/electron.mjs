/**
 * A recording stand-in for the `electron` module, so the built main entry can be loaded by
 * plain Node (the real Electron binary cannot run here). It records every call the entry
 * makes, then drives the registered handlers like Electron would, and writes a JSON report
 * to $STUB_ELECTRON_REPORT for the test to assert on.
 */
import { EventEmitter } from 'node:events'
import { writeFileSync } from 'node:fs'

const report = {
  calls: [],
  windows: [],
  schemes: [],
  protocolHandlers: [],
  ipcHandlers: [],
  appEvents: [],
  checks: {},
}
const record = (what, detail) => report.calls.push(detail === undefined ? what : `${what} ${JSON.stringify(detail)}`)

const appEmitter = new EventEmitter()
let readyResolve
const ready = new Promise((r) => (readyResolve = r))
// Read before the entry rewrites process.argv for the CLI.
const CLI_RUN = process.argv.includes('--desk-cli')
const ipcHandlers = new Map()
const protocolHandlers = new Map()
let permissionRequestHandler = null
const sessionHandlers = new Map()
let permissionCheckHandler = null

export const app = {
  setName: (n) => record('app.setName', n),
  setPath: (k) => record('app.setPath', k),
  getPath: () => process.env.STUB_USER_DATA,
  getVersion: () => '0.0.0-stub',
  enableSandbox: () => record('app.enableSandbox'),
  disableHardwareAcceleration: () => record('app.disableHardwareAcceleration'),
  requestSingleInstanceLock: () => (record('app.requestSingleInstanceLock'), true),
  whenReady: () => ready,
  on: (ev, fn) => (report.appEvents.push(ev), appEmitter.on(ev, fn), app),
  once: (ev, fn) => (report.appEvents.push(ev), appEmitter.once(ev, fn), app),
  quit: () => {
    record('app.quit')
    finish()
  },
  exit: (code) => {
    record('app.exit', code)
    finish(code)
  },
}

export const protocol = {
  registerSchemesAsPrivileged: (schemes) => report.schemes.push(...schemes),
  handle: (scheme, fn) => (report.protocolHandlers.push(scheme), protocolHandlers.set(scheme, fn)),
}

export const ipcMain = {
  handle: (channel, fn) => (report.ipcHandlers.push(channel), ipcHandlers.set(channel, fn)),
  on: (channel) => report.ipcHandlers.push(`on:${channel}`),
}

export const session = {
  defaultSession: {
    setPermissionRequestHandler: (fn) => (permissionRequestHandler = fn),
    setPermissionCheckHandler: (fn) => (permissionCheckHandler = fn),
    on: (ev, fn) => (record('session.on', ev), sessionHandlers.set(ev, fn)),
  },
}

export const shell = { openExternal: async (url) => record('shell.openExternal', url) }
export const dialog = { showOpenDialog: async () => ({ canceled: true, filePaths: [] }) }
export const powerMonitor = { on: (ev) => record('powerMonitor.on', ev) }

class FakeWebContents extends EventEmitter {
  constructor() {
    super()
    this.sent = []
    this.windowOpenHandler = null
  }
  setWindowOpenHandler(fn) {
    this.windowOpenHandler = fn
  }
  send(channel, ...args) {
    this.sent.push([channel, ...args])
  }
}

let mainWindow = null
export class BrowserWindow extends EventEmitter {
  constructor(options) {
    super()
    report.windows.push(options)
    this.webContents = new FakeWebContents()
    this.loaded = null
    // The stub drives the window the entry created, so it keeps a reference to it.
    // eslint-disable-next-line @typescript-eslint/no-this-alias
    mainWindow = this
    appEmitter.emit('web-contents-created', {}, this.webContents)
  }
  loadURL(url) {
    this.loaded = url
    report.loadedUrl = url
    return Promise.resolve()
  }
  once(ev, fn) {
    return super.once(ev, fn)
  }
  isDestroyed() {
    return false
  }
  isMinimized() {
    return false
  }
  show() {}
  focus() {}
  restore() {}
}

export class Notification {
  static isSupported() {
    return true
  }
  constructor(options) {
    this.options = options
  }
  show() {
    record('Notification.show', this.options.title)
  }
}

export default { app, protocol, ipcMain, session, shell, dialog, powerMonitor, BrowserWindow, Notification }

function fakeEvent(url, { parent = null, sender } = {}) {
  return { senderFrame: { url, parent }, sender: sender ?? mainWindow?.webContents }
}

let finished = false
function finish(code = 0) {
  if (finished) return
  finished = true
  writeFileSync(process.env.STUB_ELECTRON_REPORT, JSON.stringify(report, null, 2))
  process.exit(code)
}

async function scenario() {
  // Wait for the entry to finish start-up (window created, IPC registered).
  for (let i = 0; i < 200 && (!mainWindow || ipcHandlers.size === 0); i++) await new Promise((r) => setTimeout(r, 25))
  const c = report.checks
  const wc = mainWindow.webContents
  c.windowOpen = wc.windowOpenHandler ? wc.windowOpenHandler({ url: 'https://evil.example' }) : null
  const prevented = (ev) => {
    let p = false
    wc.emit(ev, { preventDefault: () => (p = true) }, 'https://evil.example')
    return p
  }
  c.navigationPrevented = prevented('will-navigate')
  c.redirectPrevented = prevented('will-redirect')
  c.webviewPrevented = prevented('will-attach-webview')
  c.permissionGranted = await new Promise((r) => (permissionRequestHandler ? permissionRequestHandler(wc, 'media', r) : r('no handler')))
  c.permissionCheck = permissionCheckHandler ? permissionCheckHandler(wc, 'notifications') : 'no handler'
  const download = (url) => {
    let p = false
    sessionHandlers.get('will-download')?.({ preventDefault: () => (p = true) }, { getURL: () => url })
    return p
  }
  c.downloadPrevented = {
    appExport: download('blob:app://desk/5e0c7d1a'),
    remote: download('https://evil.example/x.exe'),
    otherBlob: download('blob:https://evil.example/1'),
  }

  const invoke = ipcHandlers.get('desk:invoke')
  c.foreignFrame = await invoke(fakeEvent('https://evil.example/'), 'app.state', undefined)
  c.subFrame = await invoke(fakeEvent('app://desk/index.html', { parent: {} }), 'app.state', undefined)
  c.otherContents = await invoke(fakeEvent('app://desk/index.html', { sender: new FakeWebContents() }), 'app.state', undefined)
  c.unknownChannel = await invoke(fakeEvent('app://desk/index.html'), 'keys.dumpPrivate', undefined)
  c.wrongArgs = await invoke(fakeEvent('app://desk/index.html'), 'vault.unlock', { passphrase: 42 })
  c.appState = await invoke(fakeEvent('app://desk/index.html'), 'app.state', undefined)
  // Every contract channel has a handler: a call with deliberately wrong arguments must come
  // back as InvalidArguments (or succeed for argument-less ones), never UnknownChannel.
  const channelNames = JSON.parse(process.env.STUB_CHANNELS ?? '[]')
  c.channelCoverage = {}
  for (const name of channelNames) {
    const r = await invoke(fakeEvent('app://desk/index.html'), name, { __wrong__: true, passphrase: 7 })
    c.channelCoverage[name] = r.ok ? 'ok' : r.error.code
  }

  const handler = protocolHandlers.get('app')
  const page = await handler(new Request('app://desk/index.html'))
  c.page = { status: page.status, csp: page.headers.get('content-security-policy'), type: page.headers.get('content-type') }
  const escape = await handler(new Request('app://desk/..%2f..%2fpackage.json'))
  c.traversalStatus = escape.status

  // Orderly shutdown: before-quit is held until the core has closed, then app.quit runs.
  let heldQuit = false
  appEmitter.emit('before-quit', { preventDefault: () => (heldQuit = true) })
  c.quitHeld = heldQuit
  setTimeout(() => {
    c.quitTimedOut = true
    finish()
  }, 10_000)
}

queueMicrotask(() => {
  readyResolve()
  // The packaged CLI mode (`<app> --desk-cli`) opens no window: nothing to drive.
  if (CLI_RUN) return
  void scenario().catch((e) => {
    report.error = String(e && e.stack ? e.stack : e)
    finish()
  })
})
