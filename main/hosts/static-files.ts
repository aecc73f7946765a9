import { readFile } from 'node:fs/promises'
import { extname, join, normalize, sep } from 'node:path'

/**
 * Content-Security-Policy for the renderer, used by both hosts: no remote origins, no eval.
 * Inline styles are allowed because Naive UI injects its CSS-in-JS <style> tags at run time.
 */
export const RENDERER_CSP = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data:",
  "font-src 'self' data:",
  "connect-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
  "frame-src 'none'",
  "worker-src 'self'",
].join('; ')

const MIME: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.woff2': 'font/woff2',
  '.woff': 'font/woff',
  '.ttf': 'font/ttf',
  '.map': 'application/json',
}

export interface StaticFile {
  body: Buffer
  mime: string
}

/**
 * Reads a file of the built renderer for a URL path. Refuses anything that would escape the
 * root (`..`, encoded separators, absolute paths); unknown routes fall back to index.html.
 */
export async function readStaticFile(root: string, urlPath: string): Promise<StaticFile | null> {
  let decoded: string
  try {
    decoded = decodeURIComponent(urlPath.split('?')[0]!.split('#')[0]!)
  } catch {
    return null
  }
  if (decoded.includes('\0') || decoded.includes('\\')) return null
  const rel = decoded === '/' || decoded === '' ? 'index.html' : decoded.replace(/^\/+/, '')
  const full = normalize(join(root, rel))
  const rootNorm = normalize(root.endsWith(sep) ? root : root + sep)
  if (!full.startsWith(rootNorm)) return null
  const ext = extname(full)
  try {
    return { body: await readFile(full), mime: MIME[ext] ?? 'application/octet-stream' }
  } catch {
    if (ext && ext !== '.html') return null
    try {
      return { body: await readFile(join(root, 'index.html')), mime: MIME['.html']! }
    } catch {
      return null
    }
  }
}

/** Headers every renderer response carries. */
export function securityHeaders(mime: string): Record<string, string> {
  return {
    'content-type': mime,
    'content-security-policy': RENDERER_CSP,
    'x-content-type-options': 'nosniff',
    'referrer-policy': 'no-referrer',
    'cross-origin-opener-policy': 'same-origin',
    'cross-origin-resource-policy': 'same-origin',
    'cache-control': 'no-store',
  }
}
