/**
 * CLI cold start: `desk --help` against a bare `node -e 0` on the same machine, interleaved.
 * Measures the bundled CLI (`node out/cli/desk.mjs --help`) when it has been built, else the
 * package's `bin/desk.mjs` (which starts the TypeScript CLI under tsx), and says which.
 * Each child is timed by bash's `time`, which reports wall and CPU (user + system) time of the
 * child and everything it waited for; CPU time judges (the machine is shared), wall is reported.
 *
 * "No command slower to start than that before its first request": `desk markets` on a custom
 * network whose trading URL is a loopback server in this process, timed from spawn to the
 * arrival of its first request (wall), against a bare `node -e 0` spawned and waited for the same
 * way, interleaved.
 */
import { execFileSync, spawn } from 'node:child_process'
import { existsSync, mkdtempSync, rmSync } from 'node:fs'
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

/** Wall ms from spawn of `desk markets` until its first request reaches `server`; the child is then stopped. */
function deskFirstRequest(entry: string, dataDir: string, server: Server): Promise<number> {
  return new Promise((resolve, reject) => {
    let done = false
    const t0 = performance.now()
    const child = spawn(process.execPath, [entry, 'markets', '--data-dir', dataDir], { cwd: root, stdio: ['ignore', 'ignore', 'pipe'] })
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
      reject(new Error(`desk markets exited before any request: ${err.slice(0, 300)}`))
    })
  })
}

async function firstRequestFigure(entry: string): Promise<{ ratios: number[]; desk: number[]; bare: number[] }> {
  const server = createServer((req, res) => {
    req.resume()
    res.writeHead(503, { 'content-type': 'application/json' }).end('{"error":"bench"}')
  })
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r))
  const port = (server.address() as AddressInfo).port
  const dataDir = mkdtempSync(join(tmpdir(), 'desk-bench-cli-'))
  try {
    const base = `http://127.0.0.1:${port}`
    output([entry, 'networks', 'set', 'bench', '--kind', 'custom', '--chain-id', '31337', '--trading-url', base, '--ws-url', `ws://127.0.0.1:${port}/ws`, '--earn-url', base, '--data-dir', dataDir])
    output([entry, 'networks', 'select', 'bench', '--data-dir', dataDir])
    await deskFirstRequest(entry, dataDir, server) // warm the page cache
    await bareSpawn()
    const ratios: number[] = []
    const desk: number[] = []
    const bare: number[] = []
    for (let i = 0; i < RUNS; i++) {
      const b = await bareSpawn()
      const d = await deskFirstRequest(entry, dataDir, server)
      bare.push(b)
      desk.push(d)
      ratios.push(d / Math.max(b, 1))
    }
    return { ratios, desk, bare }
  } finally {
    server.close()
    rmSync(dataDir, { recursive: true, force: true })
  }
}

export default async function run(): Promise<BenchResult> {
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
  const first = await firstRequestFigure(entry)
  const r = (x: number) => Math.round(x)
  return {
    description: `\`node ${entry} --help\` (${entry === 'bin/desk.mjs' ? 'the tsx launcher: out/cli/desk.mjs is not built' : 'the bundled CLI'}) against \`node -e 0\`, ${RUNS} interleaved pairs, timed by bash \`time\``,
    figures: [
      fromRuns({ name: 'help_vs_bare_node', what: `node ${entry} --help over node -e 0, CPU time (user + system, children included) per interleaved pair`, unit: 'x', goal: GOAL, better: 'lower', clock: 'cpu' }, cpu),
      fromRuns({ name: 'first_request_vs_bare_node', what: `node ${entry} markets: spawn to its first request at a loopback /info, over spawn to exit of node -e 0, wall time per interleaved pair`, unit: 'x', goal: GOAL, better: 'lower', clock: 'wall' }, first.ratios),
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
      desk_markets_first_request_ms_median: r(median(first.desk)),
      bare_node_spawn_ms_median: r(median(first.bare)),
    },
    verdict: `\`desk --help\` (${entry}) costs ${median(cpu).toFixed(1)}x a bare node start in CPU time and ${median(wall).toFixed(1)}x in wall time; \`desk markets\` sends its first request after ${median(first.ratios).toFixed(1)}x a bare node start (wall)`,
  }
}
