/**
 * Security settings of the Electron shell. Electron objects are passed in (this file does not
 * import `electron`), so the same rules are testable and the entry stays the only importer.
 */
import { ExternalLinkPolicy } from '../core/security/external-links'

/** Shipped hosts only (no data dir is read): what applies while the entry passes no policy. */
const SHIPPED_ONLY: ExternalLinkCheck = new ExternalLinkPolicy('')

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

/** What the shell needs from main's link policy (`ExternalLinkPolicy` in core/security/external-links). */
export interface ExternalLinkCheck {
  /** The canonical URL to open, or null when refused. */
  allowedUrl(raw: string): string | null
}

/**
 * The URL `shell.openExternal` may be given for `raw` (its canonical form), or null. Pure: the
 * decision is the policy's, which main owns; hosts of configured networks no longer count,
 * because the renderer can add networks.
 *
 * The `readonly string[]` form is what the entry passed before the policy existed; it is accepted
 * only so the entry keeps compiling until it passes the policy, and its hosts are IGNORED (only
 * the hosts shipped with the app are allowed then).
 */
export function allowedExternalUrl(raw: string, policy: ExternalLinkCheck | readonly string[]): string | null {
  const check: ExternalLinkCheck = Array.isArray(policy) ? SHIPPED_ONLY : (policy as ExternalLinkCheck)
  return check.allowedUrl(raw)
}

/** True when main may open `raw`; prefer `allowedExternalUrl` and open the URL it returns. */
export function isAllowedExternalUrl(raw: string, policy: ExternalLinkCheck | readonly string[]): boolean {
  return allowedExternalUrl(raw, policy) !== null
}

interface EventLike {
  preventDefault(): void
}
/** The subset of WebContents the hardening touches. */
export interface WebContentsLike {
  setWindowOpenHandler(handler: (details: { url: string }) => { action: 'deny' }): void
  on(event: 'will-navigate' | 'will-redirect' | 'will-attach-webview' | 'will-frame-navigate', listener: (event: EventLike, ...args: unknown[]) => void): unknown
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
