/**
 * Electron entry: the only module that imports `electron`. It hardens the shell, serves the
 * built renderer from the `app://desk` protocol, wires IPC to the core's dispatcher after
 * checking the sender frame, and shuts the core down in order (pending journal writes first).
 */
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import {
  app,
  BrowserWindow,
  dialog,
  ipcMain,
  Notification,
  powerMonitor,
  protocol,
  session,
  shell,
  type IpcMainInvokeEvent,
} from 'electron'
import { EVENT_CHANNEL, INVOKE_CHANNEL } from './contract/bridge'
import type { NotificationEvent } from './contract/types'
// The core and the hosts load in start() (dynamic import): `desk` (--desk-cli below) never
// evaluates the GUI's side, and runs the CLI bundle's own lazily loaded copy instead.
import type { DeskCore } from './core/app/compose'
import { APP_NAME, defaultDataDir } from './core/config/paths'
import { APP_ORIGIN, APP_PROTOCOL, isAppFrameUrl } from './core/ipc/sender'
import { installCliOnPath } from './electron-shell/cli-install'
import { deskCliArgv, runDeskCli } from './electron-shell/cli-mode'
import { lockDownWebContents, refuseAllPermissions, secureWebPreferences } from './electron-shell/hardening'
import type { AttachServer, DataDirLock } from './hosts/attach'

const here = fileURLToPath(new URL('.', import.meta.url))
const rendererRoot = join(here, '../renderer')
const preloadPath = join(here, '../preload/index.cjs')

/**
 * `<app> --desk-cli ARGS`: the packaged `desk` launcher (resources/cli) runs the bundled CLI on
 * the app's own runtime (same version, same data directory). No window, no single-instance
 * lock: the CLI attaches to a running app over its socket, or takes the data-directory lock.
 */
const deskArgv = deskCliArgv(process.argv)
const cliMode = deskArgv !== null

if (deskArgv) {
  app.setName(APP_NAME)
  // Headless: the CLI opens no window and needs no GPU, so it also runs over SSH without a
  // display. On Linux the launcher passes --ozone-platform=headless (it must be on the command
  // line, before Electron initialises); here the GPU and the dock icon are turned off.
  app.disableHardwareAcceleration()
  app.dock?.hide()
  process.argv = deskArgv
  void runDeskCli({
    bundle: join(here, '../cli/desk.mjs'),
    importModule: (url) => import(url),
    stdout: process.stdout,
    stderr: process.stderr,
    exitCode: () => process.exitCode,
    exit: (code) => app.exit(code),
  })
} else {
  app.setName(APP_NAME)
  app.setPath('userData', defaultDataDir())
  app.enableSandbox()
  protocol.registerSchemesAsPrivileged([{ scheme: APP_PROTOCOL, privileges: { standard: true, secure: true, supportFetchAPI: true } }])
}

let core: DeskCore | null = null
/** One writer per data directory: held while the core runs; `desk` attaches through the socket. */
let dataDirLock: DataDirLock | null = null
let deskSocket: AttachServer | null = null
let mainWindow: BrowserWindow | null = null
let quitting = false

if (cliMode) {
  // The CLI runs above; the GUI's lifecycle below is not started.
} else if (!app.requestSingleInstanceLock()) {
  app.quit()
} else {
  app.on('second-instance', () => {
    if (mainWindow) {
      if (mainWindow.isMinimized()) mainWindow.restore()
      mainWindow.focus()
    }
  })

  app.on('web-contents-created', (_event, contents) => lockDownWebContents(contents))

  app.whenReady().then(start, (e: unknown) => {
    console.error('startup failed:', e instanceof Error ? e.message : String(e))
    app.exit(1)
  })

  app.on('window-all-closed', () => app.quit())

  // Orderly shutdown: hold the quit until the core has drained pending journal writes.
  app.on('before-quit', (event) => {
    if (quitting || !core) return
    event.preventDefault()
    quitting = true
    const closing = core
    core = null
    Promise.resolve(deskSocket?.close())
      .then(() => closing.close())
      .finally(() => {
        dataDirLock?.release()
        app.quit()
      })
  })
}

async function start(): Promise<void> {
  refuseAllPermissions(session.defaultSession, APP_ORIGIN)
  const [{ createDeskCore }, { acquireDataDirLock, startAttachServer }, { sandboxPorts }, { readStaticFile, securityHeaders }] =
    await Promise.all([import('./core/app/compose'), import('./hosts/attach'), import('./hosts/dev'), import('./hosts/static-files')])
  protocol.handle(APP_PROTOCOL, async (request) => {
    const url = new URL(request.url)
    if (url.host !== 'desk') return new Response('not found', { status: 404 })
    const file = await readStaticFile(rendererRoot, url.pathname)
    if (!file) return new Response('not found', { status: 404 })
    return new Response(new Uint8Array(file.body), { status: 200, headers: securityHeaders(file.mime) })
  })

  const dataDir = app.getPath('userData')
  dataDirLock = acquireDataDirLock(dataDir, 'electron')
  core = await createDeskCore({
    dataDir,
    ...sandboxPorts(dataDir),
    host: 'electron',
    version: app.getVersion(),
    services: {
      async openFile(purpose) {
        const result = await dialog.showOpenDialog({
          title: purpose === 'keystore' ? 'Import a keystore file' : 'Open',
          properties: ['openFile'],
          filters: [{ name: 'Keystore (JSON)', extensions: ['json', ''] }],
        })
        return result.canceled ? null : (result.filePaths[0] ?? null)
      },
      async installCli() {
        return installCliOnPath({
          platform: process.platform,
          resourcesPath: process.resourcesPath,
          home: app.getPath('home'),
          pathVar: process.env.PATH ?? '',
          ...(process.env.APPIMAGE ? { appImage: process.env.APPIMAGE } : {}),
        })
      },
      // The core has checked the URL against main's allow-list; the shell re-checks its form.
      async openExternal(href) {
        if (!href.startsWith('https://')) return false
        await shell.openExternal(href)
        return true
      },
    },
  })

  deskSocket = await startAttachServer({ core, dataDir, version: app.getVersion(), log: (line) => console.warn(line) })

  ipcMain.handle(INVOKE_CHANNEL, (event: IpcMainInvokeEvent, channel: unknown, args: unknown) => {
    // Only the app's own top-level page may call main.
    const frame = event.senderFrame
    if (!frame || frame.parent !== null || !isAppFrameUrl(frame.url) || event.sender !== mainWindow?.webContents) {
      return { ok: false, error: { code: 'ForbiddenSender', message: 'Requests are only accepted from the app window.' } }
    }
    core?.touch()
    return core
      ? core.dispatch(channel, args, { host: 'electron', sender: `electron:${event.sender.id}` })
      : { ok: false, error: { code: 'ShuttingDown', message: 'The app is shutting down.' } }
  })

  core.events.subscribe((name, payload) => {
    if (mainWindow && !mainWindow.isDestroyed()) mainWindow.webContents.send(EVENT_CHANNEL, name, payload)
    if (name === 'notify') desktopNotification(payload as NotificationEvent)
  })

  // Auto-lock on OS lock and suspend; the core's idle timer covers inactivity.
  for (const ev of ['lock-screen', 'suspend'] as const) powerMonitor.on(ev as 'lock-screen', () => core?.lockVault('os'))

  createWindow()
}

function createWindow(): void {
  mainWindow = new BrowserWindow({
    width: 1440,
    height: 900,
    minWidth: 1024,
    minHeight: 640,
    title: APP_NAME,
    backgroundColor: '#101014',
    show: false,
    webPreferences: secureWebPreferences(preloadPath),
  })
  mainWindow.once('ready-to-show', () => mainWindow?.show())
  // The page's screen leases end with it: a reload or navigation away, a crash, the window closed.
  const contents = mainWindow.webContents
  const sender = `electron:${contents.id}`
  contents.on('did-start-navigation', (details) => {
    if (details.isMainFrame && !details.isSameDocument) core?.senderGone(sender)
  })
  contents.on('render-process-gone', () => core?.senderGone(sender))
  contents.on('destroyed', () => core?.senderGone(sender))
  mainWindow.on('closed', () => {
    mainWindow = null
  })
  void mainWindow.loadURL(`${APP_ORIGIN}/index.html`)
}

/** Alerts and outcomes that need the operator reach the desktop, except in quiet hours (`desktop: false`). */
function desktopNotification(n: NotificationEvent): void {
  if (n.desktop === false || n.level === 'info' || !Notification.isSupported()) return
  new Notification({ title: n.title, body: n.message, silent: n.level === 'success' }).show()
}
