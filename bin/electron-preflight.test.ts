/**
 * `npm start` / `npm run dist` where Electron's binary or headers cannot be downloaded: one line
 * naming what is missing and pointing at `npm run web`, a non-zero exit, no stack trace, and
 * better-sqlite3 left on its Node build (the tests and the other hosts load it).
 * Every download in here goes to a port on 127.0.0.1 that nothing listens on.
 */
import { spawnSync } from 'node:child_process'
import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { createServer } from 'node:net'
import { homedir, tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
// @ts-expect-error plain ESM script without type declarations
import { electronExecutable, electronHeadersProblem, electronRebuildCli, runElectronRebuild } from './electron-preflight.mjs'

const root = join(dirname(fileURLToPath(import.meta.url)), '..')
const require = createRequire(join(root, 'package.json'))
const electronDir = dirname(require.resolve('electron/package.json'))
const electronVersion = (JSON.parse(readFileSync(join(electronDir, 'package.json'), 'utf8')) as { version: string }).version
const marker = join(dirname(require.resolve('better-sqlite3/package.json')), 'build', 'Release', '.desk-target')
const headersCached = existsSync(join(homedir(), '.electron-gyp', electronVersion, 'include', 'node', 'node.h'))
const electronBuildCached = existsSync(join(root, '.native-cache', `electron-${electronVersion}`, 'better_sqlite3.node'))
const WEB = '`npm run web` runs the same console in a browser'

let closedUrl: string
const temps: string[] = []
function temp(prefix: string): string {
  const d = mkdtempSync(join(tmpdir(), prefix))
  temps.push(d)
  return d
}

beforeAll(async () => {
  // A port that was free a moment ago: connections to it are refused at once.
  const port = await new Promise<number>((resolve) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const p = (s.address() as { port: number }).port
      s.close(() => resolve(p))
    })
  })
  closedUrl = `http://127.0.0.1:${port}`
})
afterAll(() => temps.forEach((d) => rmSync(d, { recursive: true, force: true })))

/** `npm <args>` from the project root, as the operator types it, with the given environment additions. */
function npm(args: string[], env: Record<string, string>) {
  const base = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('npm_') && !k.startsWith('ELECTRON_')))
  const r = spawnSync('npm', args, { cwd: root, env: { ...base, ...env }, encoding: 'utf8', timeout: 120_000 })
  return { status: r.status, out: `${r.stdout}${r.stderr}` }
}

function expectOneLine(out: string, what: RegExp): void {
  const lines = out.split('\n').filter((l) => l.includes(WEB))
  expect(lines).toHaveLength(1)
  expect(lines[0]).toMatch(what)
  expect(out).not.toMatch(/^\s+at /m)
  expect(out).not.toMatch(/node:internal|ERR_PACKAGE_PATH_NOT_EXPORTED|failed to install correctly/)
}

function nativeTarget(): string | null {
  return existsSync(marker) ? readFileSync(marker, 'utf8').trim() : null
}

describe('npm start without Electron', () => {
  it('says in one line that the binary is missing and names `npm run web`; the Node build stays', () => {
    const before = nativeTarget()
    // An empty override directory: Electron's binary is missing here even on a machine that has one.
    const r = npm(['start'], { ELECTRON_OVERRIDE_DIST_PATH: temp('no-electron-'), ELECTRON_MIRROR: `${closedUrl}/` })
    expect(r.status).not.toBe(0)
    expectOneLine(r.out, /^npm start: Electron's binary is missing .*could not be downloaded/)
    expect(r.out).not.toMatch(/electron-vite|building/i) // stopped before the build
    expect(nativeTarget()).toBe(before)
  })

  it.runIf(electronExecutable(electronDir) === null)(
    'on this machine (no Electron binary): the same for npm start and npm run dist',
    () => {
      for (const script of [['start'], ['run', 'dist']]) {
        const r = npm(script, { ELECTRON_MIRROR: `${closedUrl}/` })
        expect(r.status).not.toBe(0)
        expectOneLine(r.out, new RegExp(`^npm ${script.join(' ')}: Electron's binary is missing`))
        expect(nativeTarget()).toMatch(/^node-/)
      }
    },
  )

  it.runIf(!headersCached && !electronBuildCached)('with the binary but no reachable headers: one line, Node build untouched', () => {
    const dist = temp('fake-electron-')
    writeFileSync(join(dist, 'electron'), '')
    const before = nativeTarget()
    const r = npm(['start'], { ELECTRON_OVERRIDE_DIST_PATH: dist, ELECTRON_REBUILD_DIST_URL: closedUrl })
    expect(r.status).not.toBe(0)
    expectOneLine(
      r.out,
      new RegExp(
        `^npm start: cannot build better-sqlite3 for Electron ${electronVersion.replace(/\./g, '\\.')}: its headers could not be downloaded from ${closedUrl} \\(ECONNREFUSED\\)`,
      ),
    )
    expect(nativeTarget()).toBe(before)
  })

  it.runIf(!headersCached)('the headers check answers null only when they can be had', async () => {
    expect(await electronHeadersProblem(electronVersion, { ELECTRON_REBUILD_DIST_URL: closedUrl })).toMatch(
      /headers could not be downloaded/,
    )
  })
})

describe('@electron/rebuild', () => {
  it('is found although its package.json is not exported', () => {
    expect(() => require.resolve('@electron/rebuild/package.json')).toThrow(/not defined by "exports"/)
    const cli = electronRebuildCli(require) as string
    expect(cli).toMatch(/@electron[\\/]rebuild[\\/]lib[\\/]cli\.js$/)
    expect(existsSync(cli)).toBe(true)
  })

  // The environment keeps npm's `nodedir` (this machine's ~/.npmrc sets one): the rebuild must not build against Node's headers.
  it.runIf(!headersCached)('runs, and a failed rebuild is one line with its log kept (on a copy of better-sqlite3)', () => {
    const app = temp('rebuild-')
    cpSync(dirname(require.resolve('better-sqlite3/package.json')), join(app, 'node_modules', 'better-sqlite3'), {
      recursive: true,
      filter: (src) => !/[\\/]build([\\/]|$)/.test(src.slice(root.length)),
    })
    writeFileSync(join(app, 'package.json'), JSON.stringify({ name: 'app', version: '1.0.0', dependencies: { 'better-sqlite3': '*' } }))
    const line = runElectronRebuild(app, require, electronVersion, {
      ...process.env,
      npm_config_nodedir: dirname(dirname(process.execPath)),
      ELECTRON_REBUILD_DIST_URL: closedUrl,
      npm_lifecycle_event: 'start',
    }) as string | null
    expect(typeof line).toBe('string')
    expect(line).toMatch(
      new RegExp(`^npm start: rebuilding better-sqlite3 for Electron .* failed \\(details in .tmp[\\\\/]electron-rebuild.log\\); ${WEB}$`),
    )
    expect(readFileSync(join(app, '.tmp', 'electron-rebuild.log'), 'utf8')).toMatch(/Rebuild Failed/)
  })
})
