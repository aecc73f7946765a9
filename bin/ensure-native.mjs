#!/usr/bin/env node
/**
 * Makes sure better-sqlite3's native binding matches the runtime about to load it:
 *   node bin/ensure-native.mjs node       (npm test, web host, desk, bench)
 *   node bin/ensure-native.mjs electron   (npm start, npm run dist)
 * Each build is kept in .native-cache/ so switching back and forth is a file copy, not a
 * rebuild. The Node build compiles from source with node-gyp (no download); the Electron
 * build uses @electron/rebuild, which fetches Electron's headers on a machine that can.
 * For electron, what cannot be had (Electron's binary, its headers) is checked before anything
 * is switched: a machine that cannot download them keeps its Node build and gets one line.
 */
import { execFileSync, spawnSync } from 'node:child_process'
import { copyFileSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { electronBinaryProblem, electronHeadersProblem, runElectronRebuild } from './electron-preflight.mjs'

const root = join(dirname(fileURLToPath(import.meta.url)), '..')
const require = createRequire(join(root, 'package.json'))
const target = process.argv[2]
if (target !== 'node' && target !== 'electron') {
  console.error('usage: ensure-native.mjs node|electron')
  process.exit(2)
}

const pkgDir = dirname(require.resolve('better-sqlite3/package.json'))
const release = join(pkgDir, 'build', 'Release')
const binary = join(release, 'better_sqlite3.node')
const marker = join(release, '.desk-target')

/** One line on stderr and a non-zero exit: what is missing, and what runs instead. */
function fail(line) {
  console.error(line)
  process.exit(1)
}

// Before anything is switched: `electron .` cannot run without Electron's binary.
if (target === 'electron') {
  const problem = electronBinaryProblem(root, require)
  if (problem) fail(problem)
}

const electronVersion = target === 'electron' ? JSON.parse(readFileSync(require.resolve('electron/package.json'), 'utf8')).version : null
const wanted = target === 'node' ? `node-${process.versions.modules}` : `electron-${electronVersion}`
const cacheFile = (key) => join(root, '.native-cache', key, 'better_sqlite3.node')
const current = existsSync(marker) ? readFileSync(marker, 'utf8').trim() : null

function loadsInNode() {
  const r = spawnSync(process.execPath, ['-e', "new (require('better-sqlite3'))(':memory:').close()"], { cwd: root, stdio: 'ignore' })
  return r.status === 0
}

function remember(key) {
  mkdirSync(dirname(cacheFile(key)), { recursive: true })
  copyFileSync(binary, cacheFile(key))
  writeFileSync(marker, key)
}

function run(cmd, args, cwd) {
  console.error(`ensure-native: ${cmd} ${args.join(' ')}`)
  execFileSync(cmd, args, { cwd, stdio: 'inherit', env: process.env })
}

// Keep whatever is built now before replacing it.
if (current && existsSync(binary) && !existsSync(cacheFile(current))) remember(current)

if (target === 'node') {
  if (existsSync(binary) && (current === wanted || current === null) && loadsInNode()) {
    if (current === null) writeFileSync(marker, wanted)
    process.exit(0)
  }
  if (existsSync(cacheFile(wanted))) {
    mkdirSync(release, { recursive: true })
    copyFileSync(cacheFile(wanted), binary)
    writeFileSync(marker, wanted)
    if (loadsInNode()) process.exit(0)
  }
  const gyp = join(dirname(require.resolve('node-gyp/package.json')), 'bin', 'node-gyp.js')
  // Use the headers installed with this Node when present, so nothing is downloaded.
  const prefix = dirname(dirname(process.execPath))
  const nodedir = process.env.npm_config_nodedir || (existsSync(join(prefix, 'include', 'node', 'node.h')) ? prefix : null)
  run(process.execPath, [gyp, 'rebuild', '--release', ...(nodedir ? [`--nodedir=${nodedir}`] : [])], pkgDir)
  if (!loadsInNode()) {
    console.error('ensure-native: better-sqlite3 still does not load in Node after rebuilding')
    process.exit(1)
  }
  remember(wanted)
} else {
  if (current === wanted && existsSync(binary)) process.exit(0)
  if (existsSync(cacheFile(wanted))) {
    copyFileSync(cacheFile(wanted), binary)
    writeFileSync(marker, wanted)
    process.exit(0)
  }
  const headers = await electronHeadersProblem(electronVersion)
  if (headers) fail(headers)
  console.error(`ensure-native: rebuilding better-sqlite3 for Electron ${electronVersion}`)
  const failed = runElectronRebuild(root, require, electronVersion)
  if (failed) {
    // The rebuild starts by deleting the build: put the one it replaced back.
    if (current && existsSync(cacheFile(current))) {
      mkdirSync(release, { recursive: true })
      copyFileSync(cacheFile(current), binary)
      writeFileSync(marker, current)
    }
    fail(failed)
  }
  remember(wanted)
}
