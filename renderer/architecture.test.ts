/**
 * The renderer's layering, checked on the source: only stores reach the bridge, features meet
 * only through their index, and the Electron entry's import graph never reaches the web
 * adapter (so the Electron bundle cannot contain it; e2e/renderer-bundles checks the build).
 */
import { readdirSync, readFileSync, statSync } from 'node:fs'
import { dirname, join, relative, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'

// Outside src/ so the browser typecheck (renderer/tsconfig.json) does not need Node's types.
const src = resolve(dirname(fileURLToPath(import.meta.url)), 'src')

function walk(dir: string): string[] {
  return readdirSync(dir).flatMap((n) => {
    const p = join(dir, n)
    return statSync(p).isDirectory() ? walk(p) : /\.(ts|vue)$/.test(n) ? [p] : []
  })
}
const files = walk(src).filter((f) => !/\.test\.ts$/.test(f) && !f.includes(`${join(src, 'testing')}`))

/** Relative import specifiers (static and dynamic) of one file, resolved to absolute paths. */
function importsOf(file: string): string[] {
  const text = readFileSync(file, 'utf8')
  const specs = [...text.matchAll(/(?:from\s+|import\s*\(\s*|^import\s+)'(\.[^']+)'/gm)].map((m) => m[1]!)
  return specs.map((s) => {
    const p = resolve(dirname(file), s)
    for (const c of [p, `${p}.ts`, join(p, 'index.ts')]) {
      try {
        if (statSync(c).isFile()) return c
      } catch {
        // try the next candidate
      }
    }
    return p
  })
}
const rel = (p: string) => relative(src, p)
const featureOf = (p: string) => /^features\/([^/]+)\//.exec(rel(p))?.[1] ?? null

describe('renderer layering', () => {
  it('only stores (and the app event router, itself a store) import the bridge', () => {
    const offenders = files.filter(
      (f) =>
        !/(^|\/)store\.ts$/.test(rel(f)) &&
        !rel(f).startsWith('platform/') &&
        importsOf(f).some((i) => rel(i).startsWith('platform/bridge/')),
    )
    expect(offenders.map(rel)).toEqual([])
  })

  it('features import other features only through their index', () => {
    const offenders: string[] = []
    for (const f of files) {
      for (const i of importsOf(f)) {
        const target = featureOf(i)
        if (!target || target === featureOf(f)) continue
        if (rel(i) !== `features/${target}/index.ts`) offenders.push(`${rel(f)} -> ${rel(i)}`)
      }
    }
    expect(offenders).toEqual([])
  })

  it('shared code depends on no feature', () => {
    const offenders = files.filter((f) => rel(f).startsWith('shared/') && importsOf(f).some((i) => featureOf(i) !== null))
    expect(offenders.map(rel)).toEqual([])
  })

  it("the Electron entry's import graph never reaches the web adapter, and the web entry's does", () => {
    const reach = (entry: string): Set<string> => {
      const seen = new Set<string>()
      const todo = [entry]
      while (todo.length) {
        const f = todo.pop()!
        if (seen.has(f)) continue
        seen.add(f)
        try {
          todo.push(...importsOf(f))
        } catch {
          // not a source file (e.g. a stylesheet)
        }
      }
      return seen
    }
    const electron = [...reach(join(src, 'app/main.ts'))].map(rel)
    expect(electron).toContain('features/overview/OverviewView.vue') // the walk follows the graph
    expect(electron.filter((f) => f.startsWith('platform/web/'))).toEqual([])
    expect([...reach(join(src, 'platform/web/main.ts'))].map(rel)).toContain('platform/web/web-adapter.ts')
    expect(readFileSync(join(src, '../index.html'), 'utf8')).toContain('src="/src/app/main.ts"')
  })
})
