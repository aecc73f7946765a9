import { readdirSync, readFileSync } from 'node:fs'
import { join, relative } from 'node:path'
import { describe, expect, it } from 'vitest'

const ROOT = join(__dirname, '..', '..')

/** Every .ts and .vue source file of the app (no dependencies, no build output, no tests). */
function sources(dir: string, out: string[] = []): string[] {
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    if (e.name === 'node_modules' || e.name.startsWith('.') || e.name === 'out' || e.name === 'dist') continue
    const p = join(dir, e.name)
    if (e.isDirectory()) sources(p, out)
    else if (/\.(ts|vue)$/.test(e.name) && !/\.test\.ts$/.test(e.name)) out.push(p)
  }
  return out
}

describe('advice per code', () => {
  it('is written in one table only (main/contract/advice.ts), which the core and the renderer both use', () => {
    // A second table would key its texts by codes such as these; only the contract module may.
    const tables = ['main', 'renderer', 'preload']
      .flatMap((d) => sources(join(ROOT, d)))
      .filter((f) =>
        /^\s*['"]?(fokcancel|ioccancel|missingorder|InsufficientSpotBalance|Unavailable)['"]?\s*:\s*['"`]/m.test(readFileSync(f, 'utf8')),
      )
      .map((f) => relative(ROOT, f).split('\\').join('/'))
    expect(tables).toEqual(['main/contract/advice.ts'])
  })
})
