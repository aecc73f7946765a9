import { mkdirSync, mkdtempSync, readlinkSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { installCliOnPath } from './cli-install'

let dir: string
let resources: string
let home: string
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'desk-cli-install-'))
  resources = join(dir, 'app/resources')
  home = join(dir, 'home')
  mkdirSync(join(resources, 'cli'), { recursive: true })
  mkdirSync(home)
  writeFileSync(join(resources, 'cli/desk'), '#!/bin/sh\n', { mode: 0o755 })
})
afterEach(() => rmSync(dir, { recursive: true, force: true }))

describe('putting desk on the PATH', () => {
  it('links ~/.local/bin/desk to the installed launcher (never a copy), idempotently, and says whether that directory is on the PATH', () => {
    const first = installCliOnPath({ platform: 'linux', resourcesPath: resources, home, pathVar: '/usr/bin' })
    expect(first).toMatchObject({ installed: true, path: join(home, '.local/bin/desk'), onPath: false })
    expect(first.message).toContain('add')
    expect(readlinkSync(join(home, '.local/bin/desk'))).toBe(join(resources, 'cli/desk'))
    const again = installCliOnPath({ platform: 'darwin', resourcesPath: resources, home, pathVar: `/usr/bin:${join(home, '.local/bin')}` })
    expect(again).toMatchObject({ installed: true, onPath: true })
  })

  it('re-points a link left by an older installation, but never overwrites a file it did not make', () => {
    mkdirSync(join(home, '.local/bin'), { recursive: true })
    writeFileSync(join(home, '.local/bin/desk'), 'someone else’s desk')
    const r = installCliOnPath({ platform: 'linux', resourcesPath: resources, home, pathVar: '' })
    expect(r.installed).toBe(false)
    expect(r.message).toContain('not a link')
  })

  it('on Windows tells which folder to add to the PATH', () => {
    const r = installCliOnPath({ platform: 'win32', resourcesPath: 'C:\\Program Files\\Treasury Desk\\resources', home, pathVar: 'C:\\Windows' })
    expect(r).toMatchObject({ installed: false, onPath: false })
    expect(r.message).toContain('cli')
  })

  it('reports a broken installation instead of linking nothing', () => {
    rmSync(join(resources, 'cli/desk'))
    expect(installCliOnPath({ platform: 'linux', resourcesPath: resources, home, pathVar: '' })).toMatchObject({ installed: false, path: null })
  })
})
