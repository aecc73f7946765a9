/**
 * The import boundaries of docs/architecture.md are lint errors: planting a wrong import in a
 * layer's file must fail ESLint with the layer's message, and the right import must pass.
 * The core's layers are default-deny (CORE_LAYERS in eslint.config.js): each lists what it may import.
 */
import { ESLint } from 'eslint'
import { fileURLToPath, pathToFileURL } from 'node:url'
import { describe, expect, it } from 'vitest'

const root = fileURLToPath(new URL('../..', import.meta.url))
const eslint = new ESLint({ cwd: root })
const configUrl = pathToFileURL(`${root}/eslint.config.js`).href
const { CORE_LAYERS } = (await import(configUrl)) as { CORE_LAYERS: [string, string[]][] }
const LAYERS = CORE_LAYERS.map(([layer]) => layer)
const IMPORT_RULES = ['no-restricted-imports', 'desk/core-layers', 'desk/cli-contract-only']

/** The import-rule messages ESLint reports for `source` linted as if it were `filePath` (a parse error counts too). */
async function importErrors(filePath: string, source: string): Promise<string[]> {
  const [result] = await eslint.lintText(source, { filePath: `${root}/${filePath}` })
  return (result?.messages ?? []).filter((m) => m.fatal || IMPORT_RULES.includes(m.ruleId ?? '')).map((m) => m.message)
}

/** A production file of a layer (features: a file of the orders feature). */
const fileIn = (layer: string) =>
  layer === 'features'
    ? 'main/core/features/orders/planted.ts'
    : layer === 'contract'
      ? 'main/contract/planted.ts'
      : `main/core/${layer}/planted.ts`
/** The specifier that file would use to import a layer's index. */
function specifier(from: string, to: string): string {
  const up = from === 'features' ? '../../' : from === 'contract' ? '../' : '../'
  if (to === 'contract') return from === 'contract' ? './channels' : `${up}../contract`
  if (from === 'contract') return `../core/${to}`
  return `${up}${to}`
}
const importOf = (spec: string) => `import * as planted from '${spec}'\nexport const x = planted\n`

describe('lint enforces the order of the core layers (default-deny)', () => {
  // One wrong import per layer, each one a layer the table does not list for it.
  const planted: [string, string, string, RegExp][] = [
    ['contract', '../core/money/decimal', 'the contract imports the core', /self-contained/],
    ['errors', '../money/decimal', 'errors imports money', /main\/core\/errors may not import main\/core\/money/],
    ['money', '../session', 'money imports the session', /main\/core\/money may not import main\/core\/session/],
    ['wire', '../config/networks', 'wire imports config', /main\/core\/wire may not import main\/core\/config/],
    ['config', '../vault', 'config imports the vault', /main\/core\/config may not import main\/core\/vault/],
    ['vault', '../journal', 'the vault imports the journal', /main\/core\/vault may not import main\/core\/journal/],
    ['journal', '../features/credit', 'the journal imports a feature', /main\/core\/journal may not import main\/core\/features/],
    ['team', '../journal', 'the team store imports the journal', /main\/core\/team may not import main\/core\/journal/],
    ['security', '../exchange/nonces', 'security imports the exchange', /main\/core\/security may not import main\/core\/exchange/],
    ['exchange', '../session', 'the exchange imports the session', /main\/core\/exchange may not import main\/core\/session/],
    ['streams', '../ipc/dispatch', 'the streams import ipc', /main\/core\/streams may not import main\/core\/ipc/],
    ['ipc', '../session', 'ipc imports the session', /main\/core\/ipc may not import main\/core\/session/],
    ['session', '../policy', 'the session imports policy', /main\/core\/session may not import main\/core\/policy/],
    ['policy', '../features/orders', 'policy imports a feature', /main\/core\/policy may not import main\/core\/features/],
    ['writes', '../features/orders', 'the write pipeline imports a feature', /main\/core\/writes may not import main\/core\/features/],
    [
      'features',
      '../../app/compose',
      'a feature imports the composition root',
      /main\/core\/features\/orders may not import main\/core\/app/,
    ],
    [
      'app',
      '../../electron-shell/window',
      'the composition root imports the Electron shell',
      /imports only its lower layers and main\/contract, not main\/electron-shell/,
    ],
  ]
  it('plants a wrong import in every layer of the table', () => {
    expect(planted.map(([layer]) => layer).sort()).toEqual([...LAYERS].sort())
  })
  for (const [layer, spec, what, message] of planted) {
    it(`rejects: ${what} (${layer})`, async () => {
      const errors = await importErrors(fileIn(layer), importOf(spec))
      expect(
        errors.some((m) => message.test(m)),
        errors.join('\n') || 'no import error',
      ).toBe(true)
    })
  }

  it('lists for each layer only layers below it, so no allowed import runs up the order', () => {
    CORE_LAYERS.forEach(([layer, allowed], rank) => {
      for (const lower of allowed) expect(LAYERS.indexOf(lower), `${layer} -> ${lower}`).toBeLessThan(rank)
    })
  })

  it('allows exactly what each layer lists: every pair of layers, both ways', async () => {
    const wrong: string[] = []
    for (const [from, allowed] of CORE_LAYERS) {
      if (from === 'contract') continue // the contract's own rule: no relative import out of it
      // One file per layer, one import per line: line i imports targets[i].
      const targets = LAYERS.filter((to) => to !== from)
      const source = targets.map((to, i) => `import * as m${i} from '${specifier(from, to)}'\nexport const x${i} = m${i}`).join('\n') + '\n'
      const [result] = await eslint.lintText(source, { filePath: `${root}/${fileIn(from)}` })
      const messages = (result?.messages ?? []).filter((m) => m.fatal || IMPORT_RULES.includes(m.ruleId ?? ''))
      targets.forEach((to, i) => {
        const errors = messages.filter((m) => m.fatal || m.line === 2 * i + 1).map((m) => m.message)
        const expected = allowed.includes(to)
        if (expected !== (errors.length === 0)) wrong.push(`${from} -> ${to}: ${expected ? `refused: ${errors.join('; ')}` : 'accepted'}`)
      })
    }
    expect(wrong).toEqual([])
  })

  it('checks type-only imports, re-exports and dynamic imports too', async () => {
    for (const source of [
      "import type { NetworkSession } from '../session'\nexport type X = NetworkSession\n",
      "export { SessionHolder } from '../session'\n",
      "export * from '../session'\n",
      "export async function load() {\n  return import('../session')\n}\n",
    ]) {
      const errors = await importErrors('main/core/money/planted.ts', source)
      expect(
        errors.some((m) => /main\/core\/money may not import main\/core\/session/.test(m)),
        `${source}\n${errors.join('\n')}`,
      ).toBe(true)
    }
  })

  it('refuses a folder of the core that is not in the table, and imports into it', async () => {
    expect(
      (await importErrors('main/core/pipeline/planted.ts', 'export const x = 1\n')).some((m) => /not a layer of the core/.test(m)),
    ).toBe(true)
    expect(
      (await importErrors('main/core/features/orders/planted.ts', importOf('../../pipeline'))).some((m) =>
        /not a layer of the core/.test(m),
      ),
    ).toBe(true)
  })
})

describe('lint enforces the boundaries around the core', () => {
  const planted: [string, string, string, RegExp][] = [
    [
      'the core imports electron',
      'main/core/session/planted.ts',
      "import { app } from 'electron'\nexport const x = app\n",
      /Electron entry/,
    ],
    [
      'the core imports the sandbox',
      'main/core/session/planted.ts',
      "import { startSandbox } from '../../../sandbox'\nexport const x = startSandbox\n",
      /hosts\/dev imports the sandbox/,
    ],
    [
      'the core imports a host',
      'main/core/session/planted.ts',
      "import { startWebHost } from '../../hosts/web/server'\nexport const x = startWebHost\n",
      /never imports a host/,
    ],
    [
      'the core imports test code',
      'main/core/session/planted.ts',
      "import { DevVault } from '../../testing/dev-vault'\nexport const x = DevVault\n",
      /Test-only code/,
    ],
    [
      "the core imports a layer's test harness",
      'main/core/features/orders/planted.ts',
      "import * as t from '../../session/testing'\nexport const x = t\n",
      /Test-only code/,
    ],
    [
      'the core imports the Electron entry',
      'main/core/app/planted.ts',
      "import * as entry from '../../index'\nexport const x = entry\n",
      /Nothing imports the Electron entry/,
    ],
    [
      'a feature reaches into another feature',
      'main/core/features/orders/planted.ts',
      "import { CreditHealthService } from '../credit/credit-health.service'\nexport const x = CreditHealthService\n",
      /only through its index/,
    ],
    [
      'the composition root reaches into a feature',
      'main/core/app/planted.ts',
      "import { VaultHolder } from '../features/vault/vault-holder'\nexport const x = VaultHolder\n",
      /only through its index/,
    ],
    [
      'the renderer imports main',
      'renderer/src/planted.ts',
      "import { DeskError } from '../../main/core/errors/desk-error'\nexport const x = DeskError\n",
      /only through the typed contract/,
    ],
    [
      'the renderer imports the sandbox',
      'renderer/src/planted.ts',
      "import { startSandbox } from '../../sandbox'\nexport const x = startSandbox\n",
      /sandbox/,
    ],
    [
      'the Electron entry imports the web host',
      'main/index.ts',
      "import { startWebHost } from './hosts/web/server'\nexport const x = startWebHost\n",
      /no web-host code/,
    ],
    [
      'a host imports the sandbox directly',
      'main/hosts/cli/planted.ts',
      "import { startSandbox } from '../../../sandbox'\nexport const x = startSandbox\n",
      /hosts\/dev imports the sandbox/,
    ],
    [
      'the desk CLI imports the core',
      'main/hosts/cli/commands/planted.ts',
      "import { DeskError } from '../../../core/errors/desk-error'\nexport const x = DeskError\n",
      /main\/hosts\/cli imports only main\/contract and its own files, not main\/core\/errors\/desk-error/,
    ],
    [
      'the desk CLI loads the core lazily',
      'main/hosts/cli/commands/planted.ts',
      "export const load = () => import('../../../core/vault')\n",
      /main\/hosts\/cli imports only main\/contract and its own files, not main\/core\/vault/,
    ],
    [
      'the desk CLI imports a core type',
      'main/hosts/cli/planted.ts',
      "import type { DeskCore } from '../../core/app/compose'\nexport type X = DeskCore\n",
      /main\/hosts\/cli imports only main\/contract and its own files, not main\/core\/app\/compose/,
    ],
    [
      'the desk CLI imports another host',
      'main/hosts/cli/planted.ts',
      "import { connectAttach } from '../attach'\nexport const x = connectAttach\n",
      /main\/hosts\/cli imports only main\/contract and its own files, not main\/hosts\/attach/,
    ],
    [
      'the sandbox imports the core beyond the wire profile',
      'sandbox/trading/planted.ts',
      "import { Journal } from '../../main/core/journal'\nexport const x = Journal\n",
      /wire profile/,
    ],
  ]
  for (const [what, file, source, message] of planted) {
    it(`rejects: ${what}`, async () => {
      const errors = await importErrors(file, source)
      expect(
        errors.some((m) => message.test(m)),
        errors.join('\n') || 'no import error',
      ).toBe(true)
    })
  }

  const allowed: [string, string, string][] = [
    [
      'a feature uses another through its index',
      'main/core/features/orders/planted.ts',
      "import { creditFor } from '../credit'\nexport const x = creditFor\n",
    ],
    [
      'a feature uses its own files',
      'main/core/features/credit/planted.ts',
      "import { CreditHealthService } from './credit-health.service'\nexport const x = CreditHealthService\n",
    ],
    [
      'the composition root uses a feature through its index',
      'main/core/app/planted.ts',
      "import { creditHandlers } from '../features/credit'\nexport const x = creditHandlers\n",
    ],
    [
      'the core uses a lower layer',
      'main/core/features/orders/planted.ts',
      "import { parseDecimal } from '../../money/decimal'\nexport const x = parseDecimal\n",
    ],
    [
      'a layer uses its own files',
      'main/core/money/planted.ts',
      "import { parseDecimal } from './decimal'\nexport const x = parseDecimal\n",
    ],
    [
      'the renderer uses the contract',
      'renderer/src/planted.ts',
      "import { channels } from '../../main/contract/channels'\nexport const x = channels\n",
    ],
    [
      'the desk CLI uses the contract and its own files',
      'main/hosts/cli/commands/planted.ts',
      "import { DeskError } from '../../../contract/errors'\nimport type { CliContext } from '../context'\nexport const x = (c: CliContext) => [DeskError, c]\n",
    ],
    [
      "the desk CLI's composition root (core-client.ts) starts the core",
      'main/hosts/cli/core-client.ts',
      "import { acquireDataDirLock } from '../attach'\nexport const x = acquireDataDirLock\nexport const load = () => import('../../core/app/compose')\n",
    ],
    [
      'the sandbox uses the wire profile',
      'sandbox/trading/planted.ts',
      "import { CHAIN_IDS } from '../../main/core/wire/chains'\nexport const x = CHAIN_IDS\n",
    ],
    [
      'hosts/dev hands the sandbox in',
      'main/hosts/dev/planted.ts',
      "import { startSandbox } from '../../../sandbox'\nexport const x = startSandbox\n",
    ],
    [
      'a core test uses the test harness',
      'main/core/session/planted.test.ts',
      "import { DevVault } from '../../testing/dev-vault'\nexport const x = DevVault\n",
    ],
    [
      "a lower layer's test uses an upper layer",
      'main/core/money/planted.test.ts',
      "import { creditFor } from '../features/credit'\nexport const x = creditFor\n",
    ],
  ]
  for (const [what, file, source] of allowed) {
    it(`allows: ${what}`, async () => {
      expect(await importErrors(file, source)).toEqual([])
    })
  }
})
