/**
 * The desk's version: the app's package version, fixed into the bundle at build time
 * (bin/build-cli.mjs defines process.env.DESK_VERSION), so the packaged `desk` reports the
 * version of the app it ships with. Run from source, it is read from package.json.
 */
import { readFileSync } from 'node:fs'

let cached: string | undefined

export function deskVersion(): string {
  if (cached !== undefined) return cached
  const built = process.env.DESK_VERSION
  if (built) return (cached = built)
  try {
    const pkg = JSON.parse(readFileSync(new URL('../../../package.json', import.meta.url), 'utf8')) as { version?: unknown }
    cached = typeof pkg.version === 'string' ? pkg.version : '0.0.0'
  } catch {
    cached = '0.0.0'
  }
  return cached
}
