/**
 * Security settings of the Electron shell. Electron objects are passed in (this file does not
 * import `electron`), so the same rules are testable and the entry stays the only importer.
 */

/** Shipped hosts only (no data dir is read): what applies while the entry passes no policy. */

/** webPreferences every window gets; the stub-Electron test asserts each of these. */
export function secureWebPreferences(preloadPath: string) {
  return {
    preload: preloadPath,
    contextIsolation: true,
    sandbox: true,
    nodeIntegration: false,
    nodeIntegrationInWorker: false,
    nodeIntegrationInSubFrames: false,
    webSecurity: true,
    allowRunningInsecureContent: false,
    webviewTag: false,
    experimentalFeatures: false,
    spellcheck: false,
    navigateOnDragDrop: false,
    safeDialogs: true,
  } as const
}

interface EventLike {
  preventDefault(): void
}
/** The subset of WebContents the hardening touches. */
export interface WebContentsLike {
  setWindowOpenHandler(handler: (details: { url: string }) => { action: 'deny' }): void
  on(
    event: 'will-navigate' | 'will-redirect' | 'will-attach-webview' | 'will-frame-navigate',
    listener: (event: EventLike, ...args: unknown[]) => void,
  ): unknown
}
export interface SessionLike {
  setPermissionRequestHandler(handler: (wc: unknown, permission: string, callback: (granted: boolean) => void) => void): void
  setPermissionCheckHandler(handler: (...args: unknown[]) => boolean): void
  on?(event: 'will-download', listener: (event: EventLike, item: { getURL(): string }) => void): unknown
}

/**
 * Applied to every web contents ever created (`web-contents-created`): no new windows, no
 * navigation away from the loaded page, no webviews. Links the operator may open go through
 * the `shell.openExternal` channel and its allow-list instead.
 */
export function lockDownWebContents(contents: WebContentsLike): void {
  contents.setWindowOpenHandler(() => ({ action: 'deny' }))
  contents.on('will-navigate', (e) => e.preventDefault())
  contents.on('will-frame-navigate', (e) => e.preventDefault())
  contents.on('will-redirect', (e) => e.preventDefault())
  contents.on('will-attach-webview', (e) => e.preventDefault())
}

/** Downloads the app itself creates (journal exports: blob URLs of its own page); nothing else. */
export function isAppDownload(url: string, appOrigin: string): boolean {
  return url.startsWith(`blob:${appOrigin}/`)
}

/**
 * Every permission request (camera, notifications, clipboard-read, …) is refused; downloads are
 * cancelled unless the app's own page made them (exports, saved through Electron's save dialog).
 */
export function refuseAllPermissions(session: SessionLike, appOrigin: string): void {
  session.setPermissionRequestHandler((_wc, _permission, callback) => callback(false))
  session.setPermissionCheckHandler(() => false)
  session.on?.('will-download', (e, item) => {
    if (!isAppDownload(item.getURL(), appOrigin)) e.preventDefault()
  })
}
