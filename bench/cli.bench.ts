/**
 * CLI cold start: `desk --help` against a bare `node -e 0` on the same machine, interleaved.
 * Measures the bundled CLI (`node out/cli/desk.mjs --help`) when it has been built, else the
 * package's `bin/desk.mjs` (which starts the TypeScript CLI under tsx), and says which.
 * Each child is timed by bash's `time`, which reports wall and CPU (user + system) time of the
 * child and everything it waited for; CPU time judges (the machine is shared), wall is reported.
 */
import { execFileSync } from 'node:child_process'
import { existsSync } from 'node:fs'
import { join } from 'node:path'
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
  const r = (x: number) => Math.round(x)
  return {
    description: `\`node ${entry} --help\` (${entry === 'bin/desk.mjs' ? 'the tsx launcher: out/cli/desk.mjs is not built' : 'the bundled CLI'}) against \`node -e 0\`, ${RUNS} interleaved pairs, timed by bash \`time\``,
    figures: [
      fromRuns({ name: 'help_vs_bare_node', what: `node ${entry} --help over node -e 0, CPU time (user + system, children included) per interleaved pair`, unit: 'x', goal: GOAL, better: 'lower', clock: 'cpu' }, cpu),
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
    },
    verdict: `\`desk --help\` (${entry}) costs ${median(cpu).toFixed(1)}x a bare node start in CPU time and ${median(wall).toFixed(1)}x in wall time`,
  }
}
