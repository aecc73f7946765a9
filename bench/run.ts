/**
 * Runs every benchmark in bench/ (files named `*.bench.ts`, each default-exporting an async
 * function that returns a BenchResult) one after another and prints one JSON summary.
 */
import { readdirSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'
import type { BenchResult } from './types'

const dir = dirname(fileURLToPath(import.meta.url))
const only = process.argv.slice(2)
const files = readdirSync(dir)
  .filter((f) => f.endsWith('.bench.ts'))
  .filter((f) => only.length === 0 || only.some((o) => f.includes(o)))
  .sort()

const results: Record<string, BenchResult | { error: string }> = {}
for (const f of files) {
  const name = f.replace(/\.bench\.ts$/, '')
  process.stderr.write(`bench ${name}…\n`)
  try {
    const mod = (await import(pathToFileURL(join(dir, f)).href)) as { default: () => Promise<BenchResult> }
    results[name] = await mod.default()
  } catch (e) {
    results[name] = { error: e instanceof Error ? e.message : String(e) }
  }
}
const summary = {
  machine: { node: process.version, platform: process.platform, arch: process.arch, cpus: (await import('node:os')).cpus().length },
  results,
}
process.stdout.write(JSON.stringify(summary, null, 2) + '\n')
process.exit(Object.values(results).some((r) => 'error' in r) ? 1 : 0)
