import { execFileSync } from 'node:child_process'
import { mkdirSync, mkdtempSync, readFileSync, readlinkSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { APPIMAGE_MARKER, installCliOnPath, type ExecFn } from './cli-install'

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

  it('on Windows appends the launcher folder to the user PATH in the registry, keeping its type and %VARIABLES%, once', () => {
    const calls: { file: string; args: string[]; env?: Record<string, string> }[] = []
    let stored = 'C:\\Windows;%USERPROFILE%\\bin'
    const exec: ExecFn = (file, args, env) => {
      calls.push({ file, args, ...(env ? { env } : {}) })
      if (file === 'reg' && args[0] === 'query')
        return { status: 0, stdout: `\r\nHKEY_CURRENT_USER\\Environment\r\n    Path    REG_EXPAND_SZ    ${stored}\r\n\r\n` }
      if (file === 'reg' && args[0] === 'add') {
        stored = args[args.indexOf('/d') + 1]!
        return { status: 0, stdout: '' }
      }
      return { status: 0, stdout: '' }
    }
    const resourcesPath = 'C:\\Program Files\\Treasury Desk\\resources'
    const r = installCliOnPath({ platform: 'win32', resourcesPath, home, pathVar: 'C:\\Windows', exec })
    expect(r).toMatchObject({ installed: true, onPath: true, path: 'C:\\Program Files\\Treasury Desk\\resources\\cli\\desk.cmd' })
    const add = calls.find((c) => c.args[0] === 'add')!
    expect(add.args).toEqual([
      'add',
      'HKCU\\Environment',
      '/v',
      'Path',
      '/t',
      'REG_EXPAND_SZ',
      '/d',
      'C:\\Windows;%USERPROFILE%\\bin;C:\\Program Files\\Treasury Desk\\resources\\cli',
      '/f',
    ])
    // Running programs are told the environment changed (a .NET user-variable write), with the folder passed in the environment, not the command line.
    expect(calls.find((c) => c.file === 'powershell.exe')?.env).toEqual({
      DESK_CLI_DIR: 'C:\\Program Files\\Treasury Desk\\resources\\cli',
    })
    // Again: already there (any case, trailing backslash), nothing written.
    calls.length = 0
    stored = stored.toUpperCase() + '\\'
    expect(installCliOnPath({ platform: 'win32', resourcesPath, home, pathVar: '', exec })).toMatchObject({ installed: true, onPath: true })
    expect(calls.map((c) => c.args[0])).toEqual(['query'])
  })

  it('on Windows creates the user PATH when there is none, and says what to do when the registry refuses', () => {
    const added: string[][] = []
    const none: ExecFn = (file, args) => (args[0] === 'query' ? { status: 1, stdout: '' } : (added.push(args), { status: 0, stdout: '' }))
    installCliOnPath({ platform: 'win32', resourcesPath: 'C:\\App\\resources', home, pathVar: '', exec: none })
    expect(added[0]).toEqual(['add', 'HKCU\\Environment', '/v', 'Path', '/t', 'REG_EXPAND_SZ', '/d', 'C:\\App\\resources\\cli', '/f'])
    const refused: ExecFn = (file, args) => (args[0] === 'query' ? { status: 1, stdout: '' } : { status: 1, stdout: '' })
    const r = installCliOnPath({ platform: 'win32', resourcesPath: 'C:\\App\\resources', home, pathVar: '', exec: refused })
    expect(r).toMatchObject({ installed: false, onPath: false })
    expect(r.message).toContain('Add C:\\App\\resources\\cli to your user PATH')
  })

  it('for an AppImage writes a script that runs the AppImage file (its mount is transient), and replaces it on re-install', () => {
    const appImage = join(dir, 'Treasury Desk-0.1.0.AppImage')
    const r = installCliOnPath({ platform: 'linux', resourcesPath: '/tmp/.mount_TreasuXYZ/resources', home, pathVar: '', appImage })
    expect(r).toMatchObject({ installed: true, path: join(home, '.local/bin/desk') })
    const script = readFileSync(join(home, '.local/bin/desk'), 'utf8')
    expect(script).toBe(`#!/bin/sh\n${APPIMAGE_MARKER}\nexec '${appImage}' --ozone-platform=headless --disable-gpu --desk-cli "$@"\n`)
    expect(statSync(join(home, '.local/bin/desk')).mode & 0o111).not.toBe(0)
    // A later install from the deb replaces our script with the link; a foreign file is never replaced.
    expect(installCliOnPath({ platform: 'linux', resourcesPath: resources, home, pathVar: '' })).toMatchObject({ installed: true })
    expect(readlinkSync(join(home, '.local/bin/desk'))).toBe(join(resources, 'cli/desk'))
  })

  it('the AppImage script runs the image with --desk-cli and every argument intact', () => {
    const fakeImage = join(dir, "it's an image")
    writeFileSync(fakeImage, '#!/bin/sh\nfor a in "$@"; do printf "[%s]" "$a"; done\n', { mode: 0o755 })
    installCliOnPath({ platform: 'linux', resourcesPath: resources, home, pathVar: '', appImage: fakeImage })
    const out = execFileSync(join(home, '.local/bin/desk'), ['status', 'credit', 'Treasury main', '--json'], { encoding: 'utf8' })
    expect(out).toBe('[--ozone-platform=headless][--disable-gpu][--desk-cli][status][credit][Treasury main][--json]')
  })

  it('reports a broken installation instead of linking nothing', () => {
    rmSync(join(resources, 'cli/desk'))
    expect(installCliOnPath({ platform: 'linux', resourcesPath: resources, home, pathVar: '' })).toMatchObject({
      installed: false,
      path: null,
    })
  })
})
