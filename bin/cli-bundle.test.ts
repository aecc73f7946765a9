import { mkdirSync, mkdtempSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
// @ts-expect-error: a plain .mjs build script, no types
import { bundleStaleness } from './cli-bundle.mjs'

const stale = bundleStaleness as (base?: string) => string | null

let base: string
const write = (file: string, text = 'x') => {
  mkdirSync(join(base, file, '..'), { recursive: true })
  writeFileSync(join(base, file), text)
}
const mtime = (file: string) => statSync(join(base, file)).mtimeMs
function record(inputs: string[]) {
  const meta = {
    version: '1.0.0',
    packageJson: mtime('package.json'),
    lock: null,
    inputs: Object.fromEntries(inputs.map((f) => [f, mtime(f)])),
  }
  write('out/cli/desk.meta.json', JSON.stringify(meta))
}

beforeEach(() => {
  base = mkdtempSync(join(tmpdir(), 'desk-bundle-'))
  write('package.json', '{}')
  write('main/hosts/cli/desk.ts')
  write('main/hosts/cli/router.ts')
  write('out/cli/desk.mjs')
})
afterEach(() => rmSync(base, { recursive: true, force: true }))

describe('the desk bundle checked against its build record', () => {
  it('is fresh when every recorded source has the recorded mtime', () => {
    record(['main/hosts/cli/desk.ts', 'main/hosts/cli/router.ts'])
    expect(stale(base)).toBeNull()
  })

  it('is stale when a source changed (either way in time), vanished, or the record is missing', () => {
    record(['main/hosts/cli/desk.ts', 'main/hosts/cli/router.ts'])
    const t = new Date(Date.now() - 3_600_000)
    utimesSync(join(base, 'main/hosts/cli/router.ts'), t, t) // a checkout of an older file
    expect(stale(base)).toBe('changed: main/hosts/cli/router.ts')
    record(['main/hosts/cli/desk.ts', 'main/hosts/cli/router.ts'])
    rmSync(join(base, 'main/hosts/cli/router.ts'))
    expect(stale(base)).toBe('changed: main/hosts/cli/router.ts')
    rmSync(join(base, 'out/cli/desk.meta.json'))
    expect(stale(base)).toBe('no build record')
    rmSync(join(base, 'out/cli/desk.mjs'))
    expect(stale(base)).toBe('missing')
  })

  it('a package.json change (version) makes it stale; a tree without sources runs the bundle it ships', () => {
    record(['main/hosts/cli/desk.ts'])
    const t = new Date(Date.now() + 5_000)
    utimesSync(join(base, 'package.json'), t, t)
    expect(stale(base)).toBe('changed: package.json')
    rmSync(join(base, 'main'), { recursive: true })
    expect(stale(base)).toBeNull()
  })
})
