/**
 * Puts the packaged `desk` launcher on the operator's PATH, as editors install their command-line
 * launcher, without administrator rights, and always running the installed app's own version:
 * - Linux deb / unpacked and macOS: a symbolic link ~/.local/bin/desk → <resources>/cli/desk,
 *   never a copy.
 * - Linux AppImage: the app runs from a mount that changes on every start, so a link into it
 *   would break; ~/.local/bin/desk is a two-line script that runs the AppImage file itself
 *   (`exec "$APPIMAGE" --ozone-platform=headless --disable-gpu --desk-cli "$@"`), recognised by its marker line when re-installed.
 * - Windows: the operator's click on "Put the desk command on the PATH" is the confirmation; the
 *   launcher folder is appended to the user PATH in HKCU\Environment with `reg` (its value type
 *   and any %VARIABLES% kept as they are; `setx` is not used because it truncates long PATHs),
 *   then one user variable is set through .NET so Windows tells running programs the
 *   environment changed (new terminals see `desk` without signing out).
 * Pure over its inputs (testable without Electron); processes run through the injected `exec`.
 */
import { spawnSync } from 'node:child_process'
import { chmodSync, existsSync, lstatSync, mkdirSync, readFileSync, readlinkSync, symlinkSync, unlinkSync, writeFileSync } from 'node:fs'
import { delimiter, join, win32 } from 'node:path'
import type { CliInstallView } from '../contract/types'

export type ExecFn = (file: string, args: string[], env?: Record<string, string>) => { status: number | null; stdout: string }

export interface CliInstallEnv {
  platform: NodeJS.Platform
  resourcesPath: string
  home: string
  pathVar: string
  /** The AppImage file the app runs from (process.env.APPIMAGE), on Linux. */
  appImage?: string
  exec?: ExecFn
}

const defaultExec: ExecFn = (file, args, env) => {
  const r = spawnSync(file, args, {
    encoding: 'utf8',
    windowsHide: true,
    timeout: 15_000,
    ...(env ? { env: { ...process.env, ...env } } : {}),
  })
  return { status: r.status, stdout: r.stdout ?? '' }
}

/** The first line after the shebang of the script written for an AppImage. */
export const APPIMAGE_MARKER = '# Treasury Desk: desk launcher for the AppImage'

/** Chromium's headless Ozone platform, no GPU: `desk` needs no display (SSH, servers); see resources/cli/desk. */
export const HEADLESS_LINUX = '--ozone-platform=headless --disable-gpu'

const shQuote = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`

export function installCliOnPath(env: CliInstallEnv): CliInstallView {
  if (env.platform === 'win32') return installOnWindows(env)
  const binDir = join(env.home, '.local', 'bin')
  const link = join(binDir, 'desk')
  const onPath = env.pathVar.split(delimiter).includes(binDir)
  const done = (): CliInstallView => ({
    installed: true,
    path: link,
    onPath,
    message: onPath
      ? `desk is installed at ${link}.`
      : `desk is installed at ${link}; add ${binDir} to your PATH (e.g. in ~/.profile) and open a new terminal.`,
  })
  let existing: { kind: 'link'; target: string } | { kind: 'ours' } | { kind: 'foreign' } | null
  try {
    const st = lstatSync(link)
    if (st.isSymbolicLink()) existing = { kind: 'link', target: readlinkSync(link) }
    else existing = st.isFile() && readFileSync(link, 'utf8').split('\n')[1] === APPIMAGE_MARKER ? { kind: 'ours' } : { kind: 'foreign' }
  } catch {
    existing = null
  }
  if (existing?.kind === 'foreign')
    return {
      installed: false,
      path: link,
      onPath: false,
      message: `${link} exists and is not a link to Treasury Desk; remove it first, or run the desk launcher directly.`,
    }

  if (env.platform === 'linux' && env.appImage) {
    mkdirSync(binDir, { recursive: true, mode: 0o755 })
    if (existing) unlinkSync(link)
    writeFileSync(link, `#!/bin/sh\n${APPIMAGE_MARKER}\nexec ${shQuote(env.appImage)} ${HEADLESS_LINUX} --desk-cli "$@"\n`, { mode: 0o755 })
    chmodSync(link, 0o755)
    return done()
  }

  const launcher = join(env.resourcesPath, 'cli', 'desk')
  if (!existsSync(launcher))
    return {
      installed: false,
      path: null,
      onPath: false,
      message: `The launcher is missing from this installation (${launcher}); reinstall the app.`,
    }
  mkdirSync(binDir, { recursive: true, mode: 0o755 })
  if (!(existing?.kind === 'link' && existing.target === launcher)) {
    if (existing) unlinkSync(link)
    symlinkSync(launcher, link)
  }
  return done()
}

const ENV_KEY = 'HKCU\\Environment'

/** The user PATH as stored (raw, unexpanded) and its registry type; null when it cannot be read. */
export function readUserPath(exec: ExecFn): { value: string; type: string } | null {
  const r = exec('reg', ['query', ENV_KEY, '/v', 'Path'])
  // Exit 1: no user PATH yet (an empty one is created).
  if (r.status === 1) return { value: '', type: 'REG_EXPAND_SZ' }
  if (r.status !== 0) return null
  for (const line of r.stdout.split(/\r?\n/)) {
    const m = /^\s+Path\s+(REG_(?:EXPAND_)?SZ)\s+(.*)$/i.exec(line)
    if (m) return { type: m[1]!.toUpperCase(), value: m[2]!.trim() }
  }
  return { value: '', type: 'REG_EXPAND_SZ' }
}

const samePath = (a: string, b: string) =>
  win32.normalize(a).replace(/\\+$/, '').toLowerCase() === win32.normalize(b).replace(/\\+$/, '').toLowerCase()

function installOnWindows(env: CliInstallEnv): CliInstallView {
  const exec = env.exec ?? defaultExec
  const dir = win32.join(env.resourcesPath, 'cli')
  const path = win32.join(dir, 'desk.cmd')
  const manual = `Add ${dir} to your user PATH (Settings > System > About > Advanced system settings > Environment Variables), then open a new terminal.`
  const inProcess = env.pathVar.split(';').some((p) => p !== '' && samePath(p, dir))
  const stored = readUserPath(exec)
  if (!stored)
    return {
      installed: inProcess,
      path,
      onPath: inProcess,
      message: inProcess ? 'desk is on your PATH.' : `The user PATH could not be read. ${manual}`,
    }
  const entries = stored.value.split(';').filter((p) => p !== '')
  if (entries.some((p) => samePath(p, dir)))
    return { installed: true, path, onPath: true, message: `desk is on your PATH (${dir}); open a new terminal if it is not found.` }
  const next = [...entries, dir].join(';')
  const w = exec('reg', ['add', ENV_KEY, '/v', 'Path', '/t', stored.type, '/d', next, '/f'])
  if (w.status !== 0) return { installed: false, path, onPath: false, message: `The user PATH could not be changed. ${manual}` }
  // Setting a user variable through .NET broadcasts WM_SETTINGCHANGE: Explorer re-reads the
  // environment, so terminals opened from now on find desk. Best effort: the PATH is written.
  exec(
    'powershell.exe',
    ['-NoProfile', '-NonInteractive', '-Command', "[Environment]::SetEnvironmentVariable('TREASURY_DESK_CLI', $env:DESK_CLI_DIR, 'User')"],
    { DESK_CLI_DIR: dir },
  )
  return { installed: true, path, onPath: true, message: `Added ${dir} to your user PATH; open a new terminal and run desk --help.` }
}
