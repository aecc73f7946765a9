/**
 * A packaged build of this checkout ships the desk CLI: electron-builder runs on the built `out/`
 * with the project's own configuration and produces the Linux unpacked app. Electron's binary
 * cannot be downloaded here, so a stand-in Electron distribution is given (`electronDist`); the
 * stand-in binary records how it was started, which shows what the shipped launcher runs. The
 * fuses are left out of this build only because flipping them needs the real binary (they are
 * checked in main/electron-shell/packaging.test.ts); everything else is the shipped config.
 */
import { spawnSync } from 'node:child_process'
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { repoRoot } from './harness'

// electron-builder's own dependencies (no types shipped): loaded by path, typed here.
const require = createRequire(import.meta.url)
const yaml = require('js-yaml') as { load(text: string): unknown; dump(value: unknown): string }
const asar = require('@electron/asar') as {
  listPackage(path: string, opts?: unknown): string[]
  extractFile(path: string, file: string): Buffer
}
const builder = require('electron-builder') as {
  build(opts: { projectDir: string; targets: unknown; config: string; publish: 'never' }): Promise<string[]>
  Platform: { LINUX: { createTarget(types: string[], ...archs: number[]): unknown } }
  Arch: { x64: number }
}

let work: string
let appDir: string

beforeAll(async () => {
  expect(existsSync(join(repoRoot, 'out/cli/desk.mjs')), 'npm run build makes out/cli/desk.mjs').toBe(true)
  work = mkdtempSync(join(tmpdir(), 'desk-package-'))
  const electronDist = join(work, 'electron-dist')
  mkdirSync(join(electronDist, 'resources'), { recursive: true })
  // The stand-in Electron: prints its arguments one per line and exits 5.
  writeFileSync(join(electronDist, 'electron'), '#!/bin/sh\nfor a in "$@"; do echo "$a"; done\nexit 5\n', { mode: 0o755 })
  writeFileSync(join(electronDist, 'version'), 'v45.4.1')
  const config = yaml.load(readFileSync(join(repoRoot, 'electron-builder.yml'), 'utf8')) as Record<string, unknown>
  delete config.electronFuses
  const output = join(work, 'dist')
  // A config file of its own (an object would be merged with electron-builder.yml, doubling lists).
  const configPath = join(work, 'electron-builder.yml')
  writeFileSync(
    configPath,
    yaml.dump({ ...config, electronDist, electronVersion: '45.4.1', directories: { ...(config.directories as object), output } }),
  )
  await builder.build({
    projectDir: repoRoot,
    targets: builder.Platform.LINUX.createTarget(['dir'], builder.Arch.x64),
    config: configPath,
    publish: 'never',
  })
  appDir = join(output, 'linux-unpacked')
}, 300_000)

afterAll(() => {
  if (work) rmSync(work, { recursive: true, force: true })
})

describe('the packaged app (Linux, unpacked)', () => {
  it('holds the CLI bundle and the main entry in app.asar, and no web-host build', () => {
    const files = asar.listPackage(join(appDir, 'resources/app.asar'))
    expect(files).toContain('/out/cli/desk.mjs')
    expect(files).toContain('/out/main/index.js')
    expect(files.some((f) => f.startsWith('/out/renderer-web'))).toBe(false)
    expect(files).not.toContain('/out/cli/desk.meta.json') // the checkout's build record stays home
    expect(files.some((f) => f.endsWith('.map'))).toBe(false)
    // The renderer's libraries are bundled into out/renderer; they do not ship a second time.
    for (const lib of ['vue', 'naive-ui', 'pinia', 'vue-router', 'uplot'])
      expect(files.some((f) => f.startsWith(`/node_modules/${lib}/`))).toBe(false)
    for (const lib of ['better-sqlite3', 'viem', 'ws', 'valibot'])
      expect(files.some((f) => f.startsWith(`/node_modules/${lib}/`))).toBe(true)
    const pkg = JSON.parse(asar.extractFile(join(appDir, 'resources/app.asar'), 'package.json').toString('utf8')) as {
      main: string
      version: string
    }
    const own = JSON.parse(readFileSync(join(repoRoot, 'package.json'), 'utf8')) as { version: string }
    expect(pkg.main).toBe('out/main/index.js')
    // The CLI is the app's own bundle: same version as the app.
    expect(pkg.version).toBe(own.version)
    const bundled = asar.extractFile(join(appDir, 'resources/app.asar'), 'out/cli/desk.mjs')
    expect(bundled.equals(readFileSync(join(repoRoot, 'out/cli/desk.mjs')))).toBe(true)
  })

  it('ships the desk launchers in its resources, executable, beside the app binary they run', () => {
    const sh = join(appDir, 'resources/cli/desk')
    expect(statSync(sh).mode & 0o111).not.toBe(0)
    expect(existsSync(join(appDir, 'resources/cli/desk.cmd'))).toBe(true)
    expect(existsSync(join(appDir, 'treasury-desk'))).toBe(true)
    const env = { ...process.env }
    delete env.APPIMAGE
    const r = spawnSync(sh, ['status', '--json', 'two words'], { encoding: 'utf8', env })
    // The launcher ran the packaged app's binary in CLI mode with every argument intact.
    expect(r.stdout.split('\n').filter(Boolean)).toEqual([
      '--ozone-platform=headless',
      '--disable-gpu',
      '--desk-cli',
      'status',
      '--json',
      'two words',
    ])
    expect(r.status).toBe(5)
  })

  it('unpacks the native SQLite module beside the archive (a .node file cannot load from inside asar)', () => {
    expect(existsSync(join(appDir, 'resources/app.asar.unpacked/node_modules/better-sqlite3'))).toBe(true)
  })
})
