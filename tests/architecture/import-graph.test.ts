/**
 * `npm run graph:check` (dependency-cruiser, .dependency-cruiser.mjs) fails on an import that runs up a
 * layer: its rules, built from the same CORE_LAYERS table as lint, are run here on a small planted tree.
 */
import { cruise, type ICruiseResult } from 'dependency-cruiser'
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'
import { afterAll, describe, expect, it } from 'vitest'

const root = fileURLToPath(new URL('../..', import.meta.url))
const { default: config } = (await import(pathToFileURL(`${root}/.dependency-cruiser.mjs`).href)) as { default: { forbidden: object[] } }

const tree = mkdtempSync(join(tmpdir(), 'desk-graph-'))
afterAll(() => rmSync(tree, { recursive: true, force: true }))

/** Cruises a planted tree (path -> source) with the project's rules; returns "rule: from -> to" per violation. */
async function violations(files: Record<string, string>, roots: string[] = ['main']): Promise<string[]> {
  const dir = mkdtempSync(join(tree, 't-'))
  for (const [path, source] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, path)), { recursive: true })
    writeFileSync(join(dir, path), source)
  }
  const { output } = await cruise(roots, {
    baseDir: dir,
    validate: true,
    ruleSet: { forbidden: config.forbidden } as never,
    tsPreCompilationDeps: true,
  })
  const result = output as ICruiseResult
  return result.summary.violations.map((v) => `${v.rule.name}: ${v.from} -> ${v.to}`)
}

describe('graph:check refuses an import that runs up a layer', () => {
  it('refuses money importing the session, journal importing a feature, and a deep feature import', async () => {
    const found = await violations({
      'main/core/money/decimal.ts': "import { s } from '../session'\nexport const d = s\n",
      'main/core/session/index.ts': 'export const s = 1\n',
      'main/core/journal/journal.ts': "import { c } from '../features/credit'\nexport const j = c\n",
      'main/core/features/credit/index.ts': "export { c } from './credit'\n",
      'main/core/features/credit/credit.ts': 'export const c = 1\n',
      'main/core/features/orders/index.ts': "import { c } from '../credit/credit'\nexport const o = c\n",
    })
    expect(found.sort()).toEqual([
      'feature-through-index: main/core/features/orders/index.ts -> main/core/features/credit/credit.ts',
      'layer-journal: main/core/journal/journal.ts -> main/core/features/credit/index.ts',
      'layer-money: main/core/money/decimal.ts -> main/core/session/index.ts',
    ])
  })

  it('refuses a type-only import up a layer and a folder of the core outside the table', async () => {
    const found = await violations({
      'main/core/wire/chains.ts': "import type { Net } from '../config/networks'\nexport type C = Net\n",
      'main/core/config/networks.ts': 'export type Net = string\n',
      'main/core/features/orders/index.ts': "import { p } from '../../pipeline/run'\nexport const o = p\n",
      'main/core/pipeline/run.ts': 'export const p = 1\n',
    })
    expect(found.sort()).toEqual([
      'core-undeclared-layer: main/core/features/orders/index.ts -> main/core/pipeline/run.ts',
      'layer-features: main/core/features/orders/index.ts -> main/core/pipeline/run.ts',
      'layer-wire: main/core/wire/chains.ts -> main/core/config/networks.ts',
    ])
  })

  it('accepts imports down the table, within a feature, and through a feature index', async () => {
    expect(
      await violations({
        'main/core/session/index.ts':
          "import { d } from '../money/decimal'\nimport { e } from '../errors/desk-error'\nexport const s = d + e\n",
        'main/core/money/decimal.ts': "import { e } from '../errors/desk-error'\nexport const d = e\n",
        'main/core/errors/desk-error.ts': 'export const e = 1\n',
        'main/core/features/credit/index.ts': "export { c } from './credit'\n",
        'main/core/features/credit/credit.ts': "import { s } from '../../session'\nexport const c = s\n",
        'main/core/features/orders/index.ts': "import { c } from '../credit'\nexport const o = c\n",
        'main/core/app/compose.ts': "import { o } from '../features/orders'\nexport const a = o\n",
      }),
    ).toEqual([])
  })
})

describe('graph:check (run by npm run lint) refuses an import circle anywhere in our code', () => {
  it('refuses a planted circle in a core folder, in the CLI host and in the sandbox, type-only imports included', async () => {
    const found = await violations(
      {
        'main/core/streams/frames.ts': "import type { F } from './fast-frames'\nexport type G = F\n",
        'main/core/streams/fast-frames.ts': "import type { G } from './frames'\nexport type F = { g?: G }\n",
        'main/hosts/cli/context.ts': "import { r } from './router'\nexport const c = () => r\n",
        'main/hosts/cli/router.ts': "import { c } from './context'\nexport const r = () => c\n",
        'sandbox/trading/a.ts': "import { b } from './b'\nexport const a = () => b\n",
        'sandbox/trading/b.ts': "import { a } from './a'\nexport const b = () => a\n",
      },
      ['main', 'sandbox'],
    )
    // One violation per circle, named at the first import that closes it.
    expect(found.filter((v) => v.startsWith('no-circular')).sort()).toEqual([
      'no-circular: main/core/streams/fast-frames.ts -> main/core/streams/frames.ts',
      'no-circular: main/hosts/cli/context.ts -> main/hosts/cli/router.ts',
      'no-circular: sandbox/trading/a.ts -> sandbox/trading/b.ts',
    ])
  })

  it('accepts the same files once one of them stands above the other', async () => {
    const found = await violations({
      'main/core/streams/frames.ts': "import type { F } from './fast-frames'\nexport type G = F\n",
      'main/core/streams/fast-frames.ts': 'export type F = { n: number }\n',
    })
    expect(found.filter((v) => v.startsWith('no-circular'))).toEqual([])
  })
})
