/**
 * `desk keys` against a temporary data directory, secrets passed in files: the commands run in-process
 * (runCli with a captured CliIo, the path desk.ts takes); one test spawns the real process to prove
 * exit codes and stderr end to end.
 */
import { spawn } from 'node:child_process'
import { promises as fs, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import vectors from '../../../core/vault/testing/geth-v3-test-vectors.json'
import { DEV_ADDRESS_0, DEV_KEY_0 } from '../../../core/vault/testing/fixtures'
import { discoverGroups } from '../discover'
import { runCli, type GroupRef } from '../router'
import { capturedIo } from '../testing/captured-io'

const ROOT = fileURLToPath(new URL('../../../../', import.meta.url))
const DESK_TS = join(ROOT, 'main/hosts/cli/desk.ts')
const BIN = join(ROOT, 'bin/desk.mjs')
const PASS = 'correct horse battery staple'
const NEW_PASS = 'a different passphrase 7'
const GETH_31 = vectors['31_byte_key']

let dir: string
let dataDir: string
const f = (name: string) => join(dir, name)

interface Run {
  code: number | null
  stdout: string
  stderr: string
}
let groups: GroupRef[]
/** One desk command in this process, as desk.ts runs it (non-interactive: prompts refuse). */
async function desk(args: string[]): Promise<Run> {
  const { io, out, err } = capturedIo()
  const code = await runCli(args, groups, io)
  return { code, stdout: out(), stderr: err() }
}
/** The real process: bin/desk.mjs, or the sources under tsx. */
function spawnDesk(args: string[], opts: { bin?: boolean } = {}): Promise<Run> {
  const argv = opts.bin ? [BIN, ...args] : ['--import', 'tsx', DESK_TS, ...args]
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, argv, {
      cwd: ROOT,
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, TREASURY_DESK_DATA_DIR: join(dir, 'default-must-not-be-used'), DESK_FROM_SOURCE: '1' },
    })
    let stdout = ''
    let stderr = ''
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()))
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()))
    child.on('error', reject)
    child.on('close', (code) => resolve({ code, stdout, stderr }))
  })
}
const common = () => ['--data-dir', dataDir, '--passphrase-file', f('pass')]
const json = <T>(r: Run): T => {
  expect(r.stderr).toBe('')
  expect(r.code).toBe(0)
  return JSON.parse(r.stdout) as T
}
function expectFailure(r: Run, code: string): void {
  expect(r.code).toBe(1)
  expect(r.stderr).toMatch(new RegExp(`^desk: [^\\n]*\\[${code}\\]\\n$`))
}

const savedDefaultDir = process.env.TREASURY_DESK_DATA_DIR
beforeAll(async () => {
  dir = await fs.mkdtemp(join(tmpdir(), 'desk-cli-'))
  dataDir = join(dir, 'data')
  // Every command names --data-dir; the default would be a directory the test never looks at.
  process.env.TREASURY_DESK_DATA_DIR = join(dir, 'default-must-not-be-used')
  groups = await discoverGroups()
  await fs.writeFile(f('pass'), PASS + '\n')
  await fs.writeFile(f('new-pass'), NEW_PASS + '\n')
  await fs.writeFile(f('wrong-pass'), 'not the passphrase at all\n')
  await fs.writeFile(f('key'), DEV_KEY_0 + '\n')
  await fs.writeFile(f('bad-key'), '0xnothex\n')
  await fs.writeFile(f('geth31.json'), JSON.stringify(GETH_31.json))
  await fs.writeFile(f('geth31-pass'), GETH_31.password)
  await fs.writeFile(f('export-pass'), 'export keystore passphrase 1\n')
  await fs.writeFile(f('empty'), '\n')
  await fs.writeFile(f('too-big'), 'x'.repeat(64 * 1024 + 1))
})
afterAll(async () => {
  if (savedDefaultDir === undefined) delete process.env.TREASURY_DESK_DATA_DIR
  else process.env.TREASURY_DESK_DATA_DIR = savedDefaultDir
  await fs.rm(dir, { recursive: true, force: true })
})

type Listing = { accounts: Array<{ address: string; label: string; watchOnly: boolean }> }

describe('desk keys', { timeout: 120_000 }, () => {
  it('init, import-key, import-keystore, generate, watch, list', async () => {
    expectFailure(await desk(['keys', 'list', '--data-dir', dataDir]), 'VaultNotFound')
    const init = json<{ path: string; kdf: { n: number } }>(await desk(['keys', 'init', ...common(), '--scrypt-n', '16384', '--json']))
    expect(init).toMatchObject({ path: join(dataDir, 'vault.json'), kdf: { name: 'scrypt', n: 16384, r: 8, p: 1 } })
    if (process.platform !== 'win32') expect(statSync(init.path).mode & 0o777).toBe(0o600)
    expectFailure(await desk(['keys', 'init', ...common()]), 'VaultExists')

    expect(json(await desk(['keys', 'import-key', ...common(), '--key-file', f('key'), '--label', 'dev zero', '--json']))).toEqual({
      address: DEV_ADDRESS_0,
    })
    const ks = json<{ address: string }>(
      await desk(['keys', 'import-keystore', f('geth31.json'), ...common(), '--keystore-passphrase-file', f('geth31-pass'), '--json']),
    )
    const gen = json<{ address: string }>(await desk(['keys', 'generate', ...common(), '--label', 'fresh', '--json']))
    const human = await desk(['keys', 'watch', '0x70997970c51812dc3a010c7d01b50e0d17dc79c8', ...common(), '--label', 'cold'])
    expect(human).toMatchObject({ code: 0, stderr: '', stdout: 'watching 0x70997970C51812dc3A010C7d01b50e0d17dc79C8\n' })

    const list = json<Listing>(await desk(['keys', 'list', '--data-dir', dataDir, '--json']))
    expect(list.accounts.map((a) => [a.address, a.label, a.watchOnly])).toEqual([
      [DEV_ADDRESS_0, 'dev zero', false],
      [ks.address, `${ks.address.slice(0, 6)}…${ks.address.slice(-4)}`, false],
      [gen.address, 'fresh', false],
      ['0x70997970C51812dc3A010C7d01b50e0d17dc79C8', 'cold', true],
    ])
    const text = await desk(['keys', 'list', '--data-dir', dataDir])
    expect(text.stdout).toContain(`${DEV_ADDRESS_0}  key         dev zero`)
    expect(text.stdout).toContain('watch-only  cold')
    // The vault file never holds the imported key in plaintext.
    expect((await fs.readFile(init.path, 'utf8')).toLowerCase()).not.toContain(DEV_KEY_0.slice(2))
  })

  it('errors: one line on stderr, non-zero exit, vault unchanged', async () => {
    const before = await fs.readFile(join(dataDir, 'vault.json'))
    expectFailure(await desk(['keys', 'generate', '--data-dir', dataDir, '--passphrase-file', f('wrong-pass')]), 'PassphraseIncorrect')
    expectFailure(await desk(['keys', 'import-key', ...common(), '--key-file', f('bad-key')]), 'InvalidHex')
    expectFailure(await desk(['keys', 'import-key', ...common(), '--key-file', f('key')]), 'AccountExists')
    expectFailure(
      await desk(['keys', 'import-keystore', f('geth31.json'), ...common(), '--keystore-passphrase-file', f('pass')]),
      'KeystoreMacMismatch',
    )
    // Secret files, read by main (--passphrase-file of a write) or by the desk itself (--new-passphrase-file):
    // the one reader, the same typed refusals.
    expectFailure(await desk(['keys', 'generate', '--data-dir', dataDir, '--passphrase-file', f('empty')]), 'SecretFileInvalid')
    expectFailure(await desk(['keys', 'change-passphrase', ...common(), '--new-passphrase-file', f('empty')]), 'SecretFileInvalid')
    expectFailure(await desk(['keys', 'change-passphrase', ...common(), '--new-passphrase-file', f('too-big')]), 'SecretFileInvalid')
    expectFailure(await desk(['keys', 'generate', '--data-dir', dataDir, '--passphrase-file', f('missing')]), 'SecretFileUnreadable')
    expectFailure(await desk(['keys', 'change-passphrase', ...common(), '--new-passphrase-file', f('missing')]), 'SecretFileUnreadable')
    // No TTY and no file: refuse rather than hang.
    expectFailure(await desk(['keys', 'generate', '--data-dir', dataDir]), 'NoTerminal')
    // A key is never accepted as an argument.
    const arg = await desk(['keys', 'import-key', DEV_KEY_0, ...common()])
    expect(arg.code).toBe(2)
    expect(arg.stderr).not.toContain(DEV_KEY_0)
    expect(await fs.readFile(join(dataDir, 'vault.json'))).toEqual(before)
  })

  it('export-keystore writes a v3 file (0600) that another vault imports', async () => {
    const out = f('exported.json')
    const r = json<{ address: string; file: string }>(
      await desk([
        'keys',
        'export-keystore',
        DEV_ADDRESS_0,
        out,
        ...common(),
        '--keystore-passphrase-file',
        f('export-pass'),
        '--scrypt-n',
        '16384',
        '--json',
      ]),
    )
    expect(r).toEqual({ address: DEV_ADDRESS_0, file: out })
    if (process.platform !== 'win32') expect(statSync(out).mode & 0o777).toBe(0o600)
    const ks = JSON.parse(await fs.readFile(out, 'utf8')) as {
      version: number
      address: string
      crypto: { kdf: string; cipher: string; kdfparams: { n: number } }
    }
    expect(ks).toMatchObject({
      version: 3,
      address: DEV_ADDRESS_0.slice(2).toLowerCase(),
      crypto: { kdf: 'scrypt', cipher: 'aes-128-ctr', kdfparams: { n: 16384 } },
    })
    expectFailure(
      await desk(['keys', 'export-keystore', DEV_ADDRESS_0, out, ...common(), '--keystore-passphrase-file', f('export-pass')]),
      'FileExists',
    )

    const second = join(dir, 'second')
    json(await desk(['keys', 'init', '--data-dir', second, '--passphrase-file', f('new-pass'), '--scrypt-n', '16384', '--json']))
    const imported = json<{ address: string }>(
      await desk([
        'keys',
        'import-keystore',
        out,
        '--data-dir',
        second,
        '--passphrase-file',
        f('new-pass'),
        '--keystore-passphrase-file',
        f('export-pass'),
        '--json',
      ]),
    )
    expect(imported.address).toBe(DEV_ADDRESS_0)
  })

  it('remove needs --yes without a terminal; change-passphrase re-encrypts', async () => {
    expectFailure(await desk(['keys', 'remove', DEV_ADDRESS_0, ...common()]), 'ConfirmationUnavailable')
    expect(json(await desk(['keys', 'remove', DEV_ADDRESS_0, ...common(), '--yes', '--json']))).toEqual({
      address: DEV_ADDRESS_0,
      removed: true,
    })
    expect(json<Listing>(await desk(['keys', 'list', '--data-dir', dataDir, '--json'])).accounts.map((a) => a.address)).not.toContain(
      DEV_ADDRESS_0,
    )

    expect(json(await desk(['keys', 'change-passphrase', ...common(), '--new-passphrase-file', f('new-pass'), '--json']))).toEqual({
      changed: true,
    })
    expectFailure(await desk(['keys', 'generate', ...common()]), 'PassphraseIncorrect')
    const g = await desk(['keys', 'generate', '--data-dir', dataDir, '--passphrase-file', f('new-pass')])
    expect(g.code).toBe(0)
    expect(g.stdout).toMatch(/^generated 0x[0-9a-fA-F]{40}\n$/)
  })

  it('the real process (bin/desk.mjs and the sources under tsx): exit 0 with JSON, 1 with one stderr line, 2 on usage', async () => {
    const [listed, missing, usage] = await Promise.all([
      spawnDesk(['keys', 'list', '--data-dir', dataDir, '--json'], { bin: true }),
      spawnDesk(['keys', 'list', '--data-dir', join(dir, 'no-vault-here')], { bin: true }),
      spawnDesk(['keys', 'import-key', DEV_KEY_0, ...common()]),
    ])
    expect(json<Listing>(listed).accounts.map((a) => a.label)).toContain('fresh')
    expectFailure(missing, 'VaultNotFound')
    expect(usage.code).toBe(2)
    expect(usage.stderr).toMatch(/^desk: .*\[Usage\]\n$/)
    expect(usage.stderr).not.toContain(DEV_KEY_0)
  })
})
