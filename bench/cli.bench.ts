/**
 * CLI cold start: `desk --help` against a bare `node -e 0` on the same machine, interleaved.
 * Measures the bundled CLI (`node out/cli/desk.mjs --help`) when it has been built, else the
 * package's `bin/desk.mjs` (which starts the TypeScript CLI under tsx), and says which.
 * Each child is timed by bash's `time`, which reports wall and CPU (user + system) time of the
 * child and everything it waited for; CPU time judges (the machine is shared), wall is reported.
 *
 * "No command slower to start than that before its first request": one command per class on a
 * custom network whose trading URL is a loopback server in this process — a list read
 * (`markets`), the portfolio (`status`), a read through the session and write side (`settle
 * preview`), and a write that unlocks the vault at the default scrypt cost (`settle submit
 * --passphrase-file --yes`) — each timed from spawn to the arrival of its first request (wall);
 * commands that send none (`journal list`, `keys list`) from spawn to exit. Each against a bare
 * `node -e 0` spawned and waited for the same way, interleaved.
 */
import { execFileSync, spawn } from 'node:child_process'
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { performance } from 'node:perf_hooks'
import { fileURLToPath } from 'node:url'
import { fromRuns, median } from './judge'
import type { BenchResult } from './types'

const root = fileURLToPath(new URL('..', import.meta.url))
const RUNS = 5
/** Goal: `desk --help` starts within 3x the time node itself takes to start. */
const GOAL = 3

interface Timed {
  wall: number
  cpu: number
}

/** Wall and CPU ms of one command run to completion (output discarded; checked once beforehand). */
function timed(args: string[]): Timed {
  const quoted = args.map((a) => `'${a.replace(/'/g, `'\\''`)}'`).join(' ')
  const out = execFileSync('bash', ['-c', `TIMEFORMAT='%R %U %S'; { time ${quoted} >/dev/null 2>&1 ; } 2>&1`], {
    cwd: root,
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  const [real, user, sys] = out.trim().split(/\s+/).map(Number) as [number, number, number]
  return { wall: real * 1000, cpu: (user + sys) * 1000 }
}

function output(args: string[]): string {
  try {
    return execFileSync(process.execPath, args, { cwd: root, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] })
  } catch (e) {
    const x = e as { stdout?: string; stderr?: string }
    return `${x.stdout ?? ''}${x.stderr ?? ''}`
  }
}

/** Wall ms from spawn to exit of `node -e 0`, spawned the same way as the desk below. */
function bareSpawn(): Promise<number> {
  return new Promise((resolve, reject) => {
    const t0 = performance.now()
    const child = spawn(process.execPath, ['-e', '0'], { stdio: 'ignore' })
    child.on('error', reject)
    child.on('exit', () => resolve(performance.now() - t0))
  })
}

/** Wall ms from spawn of `desk ARGS` until its first request reaches `server`; the child is then stopped. */
function deskFirstRequest(entry: string, args: readonly string[], dataDir: string, server: Server): Promise<number> {
  return new Promise((resolve, reject) => {
    let done = false
    const t0 = performance.now()
    const child = spawn(process.execPath, [entry, ...args, '--data-dir', dataDir], { cwd: root, stdio: ['ignore', 'ignore', 'pipe'] })
    let err = ''
    child.stderr.on('data', (b: Buffer) => (err += b.toString()))
    const onRequest = () => {
      if (done) return
      done = true
      const ms = performance.now() - t0
      server.off('request', onRequest)
      child.kill('SIGKILL')
      resolve(ms)
    }
    server.on('request', onRequest)
    child.on('error', reject)
    child.on('exit', () => {
      if (done) return
      done = true
      server.off('request', onRequest)
      reject(new Error(`desk ${args.join(' ')} exited before any request: ${err.slice(0, 300)}`))
    })
  })
}

/** Wall ms from spawn to exit of `desk ARGS` (a command that sends no request); it must succeed. */
function deskToExit(entry: string, args: readonly string[], dataDir: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const t0 = performance.now()
    const child = spawn(process.execPath, [entry, ...args, '--data-dir', dataDir], { cwd: root, stdio: ['ignore', 'ignore', 'pipe'] })
    let err = ''
    child.stderr.on('data', (b: Buffer) => (err += b.toString()))
    child.on('error', reject)
    child.on('exit', (code) =>
      code === 0 ? resolve(performance.now() - t0) : reject(new Error(`desk ${args.join(' ')} exited ${code}: ${err.slice(0, 300)}`)),
    )
  })
}

/** One command per class, judged from spawn to its first request (or to exit when it sends none). */
interface CommandClass {
  name: string
  what: string
  args: string[]
  until: 'first request' | 'exit'
}

const A = '0x' + '1'.repeat(40)
const B = '0x' + '2'.repeat(40)

function classes(passFile: string): CommandClass[] {
  return [
    { name: 'first_request_markets', what: "desk markets (a read of the network's lists)", args: ['markets'], until: 'first request' },
    { name: 'first_request_status', what: 'desk status (the portfolio read)', args: ['status'], until: 'first request' },
    {
      name: 'first_request_settle_preview',
      what: 'desk settle preview (a read through the network session and write side)',
      args: ['settle', 'preview', A, B, 'USDC', '1'],
      until: 'first request',
    },
    {
      name: 'first_request_settle_submit',
      what: 'desk settle submit --passphrase-file --yes (a write: vault unlock at scrypt N=2^18 beside its first /info read)',
      args: ['settle', 'submit', A, B, 'USDC', '1', '--passphrase-file', passFile, '--yes'],
      until: 'first request',
    },
    { name: 'exit_journal_list', what: 'desk journal list (no request: the local journal)', args: ['journal', 'list'], until: 'exit' },
    { name: 'exit_keys_list', what: 'desk keys list (no request: the vault file)', args: ['keys', 'list'], until: 'exit' },
  ]
}

async function commandFigures(entry: string): Promise<{ cls: CommandClass; ratios: number[]; desk: number[]; bare: number[] }[]> {
  const server = createServer((req, res) => {
    req.resume()
    res.writeHead(503, { 'content-type': 'application/json' }).end('{"error":"bench"}')
  })
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r))
  const port = (server.address() as AddressInfo).port
  const dataDir = mkdtempSync(join(tmpdir(), 'desk-bench-cli-'))
  try {
    const base = `http://127.0.0.1:${port}`
    const passFile = join(dataDir, 'passphrase')
    writeFileSync(passFile, 'correct horse battery staple 42!\n', { mode: 0o600 })
    output([
      entry,
      'networks',
      'set',
      'bench',
      '--kind',
      'custom',
      '--chain-id',
      '31337',
      '--trading-url',
      base,
      '--ws-url',
      `ws://127.0.0.1:${port}/ws`,
      '--earn-url',
      base,
      '--data-dir',
      dataDir,
    ])
    output([entry, 'networks', 'select', 'bench', '--data-dir', dataDir])
    // A vault at the default KDF cost (scrypt N=2^18), so the submit's unlock costs what it costs an operator.
    output([entry, 'keys', 'init', '--passphrase-file', passFile, '--data-dir', dataDir])
    output([entry, 'keys', 'watch', A, '--label', 'Bench A', '--passphrase-file', passFile, '--data-dir', dataDir])
    const measure = (c: CommandClass) =>
      c.until === 'exit' ? deskToExit(entry, c.args, dataDir) : deskFirstRequest(entry, c.args, dataDir, server)
    const all = classes(passFile)
    const out = all.map((cls) => ({ cls, ratios: [] as number[], desk: [] as number[], bare: [] as number[] }))
    for (const c of all) await measure(c) // warm the page cache; a failing command fails the bench here
    await bareSpawn()
    for (let i = 0; i < RUNS; i++) {
      for (const o of out) {
        const b = await bareSpawn()
        const d = await measure(o.cls)
        o.bare.push(b)
        o.desk.push(d)
        o.ratios.push(d / Math.max(b, 1))
      }
    }
    return out
  } finally {
    server.close()
    rmSync(dataDir, { recursive: true, force: true })
  }
}

export default async function run(): Promise<BenchResult> {
  // bin/desk.mjs rebuilds the bundle when its build record does not match the sources: the
  // figures below are never taken on a stale bundle.
  output([join(root, 'bin/desk.mjs'), '--version'])
  const bundled = join(root, 'out/cli/desk.mjs')
  const entry = existsSync(bundled) ? 'out/cli/desk.mjs' : 'bin/desk.mjs'
  const desk = [process.execPath, entry, '--help']
  const bare = [process.execPath, '-e', '0']
  // The command must really print its help, or the figure would time a failure.
  const help = output([entry, '--help'])
  if (!/usage|desk/i.test(help)) throw new Error(`${entry} --help printed no help: ${help.slice(0, 200)}`)
  timed(bare) // warm the page cache for both
  timed(desk)
  const cpu: number[] = []
  const wall: number[] = []
  const deskRuns: Timed[] = []
  const bareRuns: Timed[] = []
  for (let i = 0; i < RUNS; i++) {
    const b = timed(bare)
    const d = timed(desk)
    bareRuns.push(b)
    deskRuns.push(d)
    cpu.push(d.cpu / Math.max(b.cpu, 1))
    wall.push(d.wall / Math.max(b.wall, 1))
  }
  const commands = await commandFigures(entry)
  const r = (x: number) => Math.round(x)
  return {
    description: `\`node ${entry} --help\` (${entry === 'bin/desk.mjs' ? 'the tsx launcher: out/cli/desk.mjs is not built' : 'the bundled CLI'}) against \`node -e 0\`, ${RUNS} interleaved pairs, timed by bash \`time\``,
    figures: [
      fromRuns(
        {
          name: 'help_vs_bare_node',
          what: `node ${entry} --help over node -e 0, CPU time (user + system, children included) per interleaved pair`,
          unit: 'x',
          goal: GOAL,
          better: 'lower',
          clock: 'cpu',
        },
        cpu,
      ),
      ...commands.map((c) =>
        fromRuns(
          {
            name: `${c.cls.name}_vs_bare_node`,
            what: `${c.cls.what}: spawn to its ${c.cls.until}${c.cls.until === 'first request' ? ' at a loopback server' : ''}, over spawn to exit of node -e 0, wall time per interleaved pair`,
            unit: 'x',
            goal: GOAL,
            better: 'lower',
            clock: 'wall',
          },
          c.ratios,
        ),
      ),
    ],
    metrics: {
      measured: entry,
      desk_help_wall_ms_median: r(median(deskRuns.map((x) => x.wall))),
      desk_help_cpu_ms_median: r(median(deskRuns.map((x) => x.cpu))),
      bare_node_wall_ms_median: r(median(bareRuns.map((x) => x.wall))),
      bare_node_cpu_ms_median: r(median(bareRuns.map((x) => x.cpu))),
      wall_ratio_median: Number(median(wall).toFixed(2)),
      wall_ratio_min: Number(Math.min(...wall).toFixed(2)),
      wall_ratio_max: Number(Math.max(...wall).toFixed(2)),
      ...Object.fromEntries(commands.map((c) => [`${c.cls.name}_ms_median`, r(median(c.desk))])),
      bare_node_spawn_ms_median: r(median(commands.flatMap((c) => c.bare))),
    },
    verdict: `\`desk --help\` (${entry}) costs ${median(cpu).toFixed(1)}x a bare node start in CPU time and ${median(wall).toFixed(1)}x in wall time; every command class starts (to its first request, or to exit) within ${Math.max(...commands.map((c) => median(c.ratios))).toFixed(1)}x a bare node start (wall, worst class median)`,
  }
}
