import { describe, expect, it } from 'vitest'
import { COMMAND_GROUPS } from './discover'
import type { CliIo } from './io'
import { runCli, type LazyGroup } from './router'
import { deskVersion } from './version'
import pkg from '../../../package.json'

function fakeIo() {
  const out: string[] = []
  const err: string[] = []
  const io: CliIo = {
    stdout: (t) => void out.push(t),
    stderr: (t) => void err.push(t),
    isInteractive: () => false,
    promptLine: () => Promise.reject(new Error('no tty')),
    promptHidden: () => Promise.reject(new Error('no tty')),
  }
  return { io, out, err }
}

describe('desk command table', () => {
  it('lists each group with the name and summary its module declares', async () => {
    for (const ref of COMMAND_GROUPS) {
      const g = await ref.load()
      expect([g.name, g.summary]).toEqual([ref.name, ref.summary])
    }
  })

  it('desk --help loads no command module; a group loads only when used', async () => {
    const loaded: string[] = []
    const groups: LazyGroup[] = COMMAND_GROUPS.map((g) => ({ ...g, load: () => (loaded.push(g.name), g.load()) }))
    const help = fakeIo()
    expect(await runCli(['--help'], groups, help.io)).toBe(0)
    expect(help.out.join('')).toContain('status')
    expect(loaded).toEqual([])
    const groupHelp = fakeIo()
    expect(await runCli(['markets', '--help'], groups, groupHelp.io)).toBe(0)
    expect(groupHelp.out.join('')).toContain('usage: desk markets')
    expect(loaded).toEqual(['markets'])
  })

  it('desk --version prints the package version, as text or JSON', async () => {
    expect(deskVersion()).toBe(pkg.version)
    const text = fakeIo()
    expect(await runCli(['--version'], COMMAND_GROUPS, text.io)).toBe(0)
    expect(text.out.join('')).toBe(`desk ${pkg.version}\n`)
    const json = fakeIo()
    expect(await runCli(['--version', '--json'], COMMAND_GROUPS, json.io)).toBe(0)
    expect(JSON.parse(json.out.join(''))).toEqual({ version: pkg.version })
  })
})
