/** The renderer's own origin under Electron (custom protocol) — the only frame allowed to call main. */
export const APP_PROTOCOL = 'app'
export const APP_ORIGIN = `${APP_PROTOCOL}://desk`

/**
 * True when a calling frame's URL belongs to the app's own page. Electron hosts pass the
 * sender frame URL; anything else (a remote page, a devtools or data: frame) is refused.
 */
export function isAppFrameUrl(url: string | undefined, devServerOrigin?: string): boolean {
  if (!url) return false
  let parsed: URL
  try {
    parsed = new URL(url)
  } catch {
    return false
  }
  if (parsed.protocol === `${APP_PROTOCOL}:` && parsed.host === 'desk') return true
  if (devServerOrigin && parsed.origin === devServerOrigin) return true
  return false
}
