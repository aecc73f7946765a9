/**
 * Puts the packaged `desk` launcher on the operator's PATH, as editors install their command-line
 * launcher: a symbolic link in a per-user bin directory (no administrator rights), never a copy, so
 * the command always runs the installed app's own version. Pure over its inputs (testable without
 * Electron); the entry passes `process.resourcesPath`.
 */
import { existsSync, lstatSync, mkdirSync, readlinkSync, symlinkSync, unlinkSync } from 'node:fs'
import { delimiter, join } from 'node:path'
import type { CliInstallView } from '../contract/types'

export interface CliInstallEnv {
  platform: NodeJS.Platform
  resourcesPath: string
  home: string
  pathVar: string
}

export function installCliOnPath(env: CliInstallEnv): CliInstallView {
  if (env.platform === 'win32') {
    const dir = join(env.resourcesPath, 'cli')
    const onPath = env.pathVar.split(delimiter).some((p) => p.toLowerCase() === dir.toLowerCase())
    return {
      installed: onPath,
      path: join(dir, 'desk.cmd'),
      onPath,
      message: onPath ? 'desk is on your PATH.' : `Add ${dir} to your user PATH (Settings > System > About > Advanced system settings > Environment Variables), then open a new terminal.`,
    }
  }
  const launcher = join(env.resourcesPath, 'cli', 'desk')
  if (!existsSync(launcher)) return { installed: false, path: null, onPath: false, message: `The launcher is missing from this installation (${launcher}); reinstall the app.` }
  const binDir = join(env.home, '.local', 'bin')
  const link = join(binDir, 'desk')
  mkdirSync(binDir, { recursive: true, mode: 0o755 })
  let existing: string | null
  try {
    existing = lstatSync(link).isSymbolicLink() ? readlinkSync(link) : 'not a link'
  } catch {
    existing = null
  }
  if (existing === 'not a link') return { installed: false, path: link, onPath: false, message: `${link} exists and is not a link to Treasury Desk; remove it first, or run ${launcher} directly.` }
  if (existing !== launcher) {
    if (existing !== null) unlinkSync(link)
    symlinkSync(launcher, link)
  }
  const onPath = env.pathVar.split(delimiter).includes(binDir)
  return {
    installed: true,
    path: link,
    onPath,
    message: onPath ? `desk is installed at ${link}.` : `desk is installed at ${link}; add ${binDir} to your PATH (e.g. in ~/.profile) and open a new terminal.`,
  }
}
