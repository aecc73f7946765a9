/**
 * The packaging configuration flips the Electron fuses that keep the shipped binary from being
 * turned into something else on the operator's machine. Read through electron-builder's own
 * loader pieces (js-yaml, its JSON schema, its fuse mapping), so a typo or a dropped key fails here
 * rather than silently shipping an unfused app.
 */
import { spawnSync } from 'node:child_process'
import { chmodSync, copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createRequire } from 'node:module'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'

// Both are electron-builder's own dependencies (no types shipped): loaded by path, typed here.
const require = createRequire(import.meta.url)
const yaml = require('js-yaml') as { load(text: string): unknown }
const builderConfig = require('app-builder-lib/out/util/config/config') as {
  validateConfiguration(config: unknown, debugLogger: { isEnabled: boolean; add(key: string, value: unknown): void }): Promise<void>
}
const { PlatformPackager } = require('app-builder-lib') as {
  PlatformPackager: { prototype: { generateFuseConfig(fuses: unknown): Promise<Record<string | number, unknown>> } }
}

const CONFIG_PATH = fileURLToPath(new URL('../../electron-builder.yml', import.meta.url))

/** Every fuse the app depends on, with the value it must have. */
const REQUIRED_FUSES = {
  runAsNode: false,
  enableNodeOptionsEnvironmentVariable: false,
  enableNodeCliInspectArguments: false,
  onlyLoadAppFromAsar: true,
  enableEmbeddedAsarIntegrityValidation: true,
  enableCookieEncryption: true,
} as const

function loadConfig(): Record<string, unknown> {
  const config = yaml.load(readFileSync(CONFIG_PATH, 'utf8'))
  if (typeof config !== 'object' || config === null) throw new Error('electron-builder.yml is not a mapping')
  return config as Record<string, unknown>
}

/** The fuse problems of a configuration; empty when every required fuse is set as required. */
function fuseProblems(config: Record<string, unknown>): string[] {
  const fuses = config.electronFuses
  if (typeof fuses !== 'object' || fuses === null) return ['electronFuses is missing']
  const problems: string[] = []
  for (const [name, want] of Object.entries(REQUIRED_FUSES)) {
    const got = (fuses as Record<string, unknown>)[name]
    // Strictly booleans: YAML would also accept "false" strings or `no`, which mean other things.
    if (got !== want) problems.push(`${name} is ${JSON.stringify(got)}, must be ${want}`)
  }
  if (config.asar === false) problems.push('asar is off, so onlyLoadAppFromAsar would leave the app unloadable')
  return problems
}

describe('packaging: Electron fuses', () => {
  it('electron-builder.yml sets every required fuse', () => {
    expect(fuseProblems(loadConfig())).toEqual([])
  })

  it('the check fails on a missing, wrong or string-typed fuse', () => {
    const base = loadConfig()
    const fuses = base.electronFuses as Record<string, unknown>
    expect(fuseProblems({ ...base, electronFuses: undefined })).toEqual(['electronFuses is missing'])
    for (const name of Object.keys(REQUIRED_FUSES)) {
      const { [name]: _dropped, ...without } = fuses
      expect(fuseProblems({ ...base, electronFuses: without })).toEqual([
        `${name} is undefined, must be ${REQUIRED_FUSES[name as keyof typeof REQUIRED_FUSES]}`,
      ])
      expect(fuseProblems({ ...base, electronFuses: { ...fuses, [name]: !fuses[name] } })).toHaveLength(1)
      expect(fuseProblems({ ...base, electronFuses: { ...fuses, [name]: String(fuses[name]) } })).toHaveLength(1)
    }
  })

  it('electron-builder accepts the whole configuration against its schema', async () => {
    await expect(builderConfig.validateConfiguration(loadConfig(), { isEnabled: false, add: () => {} })).resolves.toBeUndefined()
    // The schema is strict about fuse names: a misspelt fuse would be refused, not ignored.
    const bad = { ...loadConfig(), electronFuses: { runAsNodes: false } }
    await expect(builderConfig.validateConfiguration(bad, { isEnabled: false, add: () => {} })).rejects.toThrow(/electronFuses/)
  })

  it("electron-builder's own fuse mapping turns the configuration into the intended @electron/fuses wire", async () => {
    const { FuseV1Options } = (await import('@electron/fuses')) as unknown as { FuseV1Options: Record<string, number> }
    const wire = await PlatformPackager.prototype.generateFuseConfig.call({}, loadConfig().electronFuses)
    expect(wire[FuseV1Options.RunAsNode!]).toBe(false)
    expect(wire[FuseV1Options.EnableNodeOptionsEnvironmentVariable!]).toBe(false)
    expect(wire[FuseV1Options.EnableNodeCliInspectArguments!]).toBe(false)
    expect(wire[FuseV1Options.OnlyLoadAppFromAsar!]).toBe(true)
    expect(wire[FuseV1Options.EnableEmbeddedAsarIntegrityValidation!]).toBe(true)
    expect(wire[FuseV1Options.EnableCookieEncryption!]).toBe(true)
  })
})

describe('the packages ship the desk CLI', () => {
  it('app.asar holds the CLI bundle and the resources hold its launchers', () => {
    const config = loadConfig() as { files: string[]; extraResources: { from: string; to: string; filter: string[] }[] }
    expect(config.files).toContain('out/**')
    expect(config.extraResources).toContainEqual({ from: 'resources/cli', to: 'cli', filter: ['desk', 'desk.cmd'] })
    const sh = readFileSync(fileURLToPath(new URL('../../resources/cli/desk', import.meta.url)), 'utf8')
    const cmd = readFileSync(fileURLToPath(new URL('../../resources/cli/desk.cmd', import.meta.url)), 'utf8')
    expect(sh).toMatch(/exec "\$app" \$headless --desk-cli "\$@"/)
    expect(cmd).toMatch(/"%APP%" --desk-cli %\*/)
  })

  it('the launcher runs the app binary next to it with --desk-cli and every argument, and passes its exit code', () => {
    const dir = mkdtempSync(join(tmpdir(), 'desk-launcher-'))
    try {
      mkdirSync(join(dir, 'resources/cli'), { recursive: true })
      copyFileSync(fileURLToPath(new URL('../../resources/cli/desk', import.meta.url)), join(dir, 'resources/cli/desk'))
      chmodSync(join(dir, 'resources/cli/desk'), 0o755)
      // A stand-in for the app binary (deb layout: <app>/treasury-desk beside <app>/resources).
      writeFileSync(join(dir, 'treasury-desk'), '#!/bin/sh\nprintf "%s|" "$@"\nexit 7\n', { mode: 0o755 })
      const env = { ...process.env }
      delete env.APPIMAGE
      const r = spawnSync(join(dir, 'resources/cli/desk'), ['status', '--json', 'two words'], { encoding: 'utf8', env })
      // Linux: Chromium's headless platform, no GPU (no display needed, e.g. over SSH), then the CLI's arguments.
      expect(r.stdout).toBe('--ozone-platform=headless|--disable-gpu|--desk-cli|status|--json|two words|')
      expect(r.status).toBe(7)
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  })
})
