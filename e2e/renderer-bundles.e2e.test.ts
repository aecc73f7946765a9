/**
 * The built renderers (`npm run test:e2e` builds first): the Electron renderer (out/renderer)
 * contains no code of the web adapter, the web renderer (out/renderer-web) does. Strings
 * survive minification, so two literals only the adapter holds mark its presence; finding
 * them in the web build proves the markers are real.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { repoRoot } from './harness'

const MARKERS = ['/bridge?token=', 'The desk host refused the connection']

function builtText(dir: string): string {
  const out: string[] = []
  const walk = (d: string) => {
    for (const n of readdirSync(d)) {
      const p = join(d, n)
      if (statSync(p).isDirectory()) walk(p)
      else if (/\.(js|html)$/.test(n)) out.push(readFileSync(p, 'utf8'))
    }
  }
  walk(dir)
  return out.join('\n')
}

describe('renderer bundles', () => {
  const electron = join(repoRoot, 'out/renderer')
  const web = join(repoRoot, 'out/renderer-web')

  it('both builds exist', () => {
    expect(existsSync(join(electron, 'index.html'))).toBe(true)
    expect(existsSync(join(web, 'index.html'))).toBe(true)
  })

  it('the web adapter is in the web build and not in the Electron build', () => {
    const webText = builtText(web)
    const electronText = builtText(electron)
    for (const m of MARKERS) {
      expect(webText, `web build lacks ${m}`).toContain(m)
      expect(electronText, `Electron build contains ${m}`).not.toContain(m)
    }
  })
})
