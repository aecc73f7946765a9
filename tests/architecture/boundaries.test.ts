/**
 * The import boundaries of docs/architecture.md are lint errors: planting a wrong import in a
 * layer's file must fail ESLint with the layer's message, and the right import must pass.
 */
import { ESLint } from 'eslint'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'

const root = fileURLToPath(new URL('../..', import.meta.url))
const eslint = new ESLint({ cwd: root })

async function importErrors(filePath: string, source: string): Promise<string[]> {
  const [result] = await eslint.lintText(source, { filePath: `${root}/${filePath}` })
  return (result?.messages ?? []).filter((m) => m.ruleId === 'no-restricted-imports').map((m) => m.message)
}

describe('lint enforces the layer boundaries', () => {
  const planted: [string, string, string, RegExp][] = [
    ['the core imports electron', 'main/core/session/planted.ts', "import { app } from 'electron'\nexport const x = app\n", /Electron entry/],
    ['the core imports the sandbox', 'main/core/session/planted.ts', "import { startSandbox } from '../../../sandbox'\nexport const x = startSandbox\n", /hosts\/dev imports the sandbox/],
    ['the core imports a host', 'main/core/session/planted.ts', "import { startWebHost } from '../../hosts/web/server'\nexport const x = startWebHost\n", /never imports a host/],
    ['the core imports test code', 'main/core/session/planted.ts', "import { DevVault } from '../../testing/dev-vault'\nexport const x = DevVault\n", /Test-only code/],
    ['a feature reaches into another feature', 'main/core/features/orders/planted.ts', "import { CreditHealthService } from '../credit/credit-health.service'\nexport const x = CreditHealthService\n", /only through their index/],
    ['the composition root reaches into a feature', 'main/core/app/planted.ts', "import { VaultHolder } from '../features/vault/vault-holder'\nexport const x = VaultHolder\n", /only through its index/],
    ['the renderer imports main', 'renderer/src/planted.ts', "import { DeskError } from '../../main/core/errors/desk-error'\nexport const x = DeskError\n", /only through the typed contract/],
    ['the renderer imports the sandbox', 'renderer/src/planted.ts', "import { startSandbox } from '../../sandbox'\nexport const x = startSandbox\n", /sandbox/],
    ['the Electron entry imports the web host', 'main/index.ts', "import { startWebHost } from './hosts/web/server'\nexport const x = startWebHost\n", /no web-host code/],
    ['a host imports the sandbox directly', 'main/hosts/cli/planted.ts', "import { startSandbox } from '../../../sandbox'\nexport const x = startSandbox\n", /hosts\/dev imports the sandbox/],
    ['the sandbox imports the core beyond the wire profile', 'sandbox/trading/planted.ts', "import { Journal } from '../../main/core/journal'\nexport const x = Journal\n", /wire profile/],
  ]
  for (const [what, file, source, message] of planted) {
    it(`rejects: ${what}`, async () => {
      const errors = await importErrors(file, source)
      expect(errors.some((m) => message.test(m)), errors.join('\n') || 'no import error').toBe(true)
    })
  }

  const allowed: [string, string, string][] = [
    ['a feature uses another through its index', 'main/core/features/orders/planted.ts', "import { creditFor } from '../credit'\nexport const x = creditFor\n"],
    ['the core uses a lower layer', 'main/core/features/orders/planted.ts', "import { parseDecimal } from '../../money/decimal'\nexport const x = parseDecimal\n"],
    ['the renderer uses the contract', 'renderer/src/planted.ts', "import { channels } from '../../main/contract/channels'\nexport const x = channels\n"],
    ['the sandbox uses the wire profile', 'sandbox/trading/planted.ts', "import { CHAIN_IDS } from '../../main/core/wire/chains'\nexport const x = CHAIN_IDS\n"],
    ['hosts/dev hands the sandbox in', 'main/hosts/dev/planted.ts', "import { startSandbox } from '../../../sandbox'\nexport const x = startSandbox\n"],
    ['a core test uses the test harness', 'main/core/session/planted.test.ts', "import { DevVault } from '../../testing/dev-vault'\nexport const x = DevVault\n"],
  ]
  for (const [what, file, source] of allowed) {
    it(`allows: ${what}`, async () => {
      expect(await importErrors(file, source)).toEqual([])
    })
  }
})
