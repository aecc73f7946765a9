import js from '@eslint/js'
import pluginVue from 'eslint-plugin-vue'
import eslintConfigPrettier from 'eslint-config-prettier'
import globals from 'globals'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import tseslint from 'typescript-eslint'

const ROOT = path.dirname(fileURLToPath(import.meta.url))

// Import boundaries (docs/architecture.md). Inside the core: the layer table CORE_LAYERS and the local rule
// desk/core-layers (default-deny). Around it: one no-restricted-imports block per folder. In a flat config a
// later block replaces an earlier block's options for the same rule, so each block lists all of its folder's
// restrictions, built by `boundary`.
const rule = {
  electron: { paths: [{ name: 'electron', message: 'Only the Electron entry (main/index.ts) and the preload import electron.' }] },
  hosts: { regex: '(^|/)hosts/', message: 'The core never imports a host; hosts sit on top of it.' },
  sandbox: { regex: '(^|/)sandbox(/|$)', message: 'Only main/hosts/dev imports the sandbox; the core gets it as a port.' },
  testing: {
    regex: '(^|/)(testing|testdata)(/|$)|test-support',
    message: 'Test-only code (testing/, testdata/) is imported only by tests, e2e and benches.',
  },
  entry: { regex: '(^|/)main/index$|^\\.\\./index$', message: 'Nothing imports the Electron entry.' },
  mainOutsideContract: {
    regex: '(^|/)main/(?!contract(/|$))',
    message: 'The renderer and preload talk to main only through the typed contract (main/contract).',
  },
  leaveContract: { regex: '^\\.\\./', message: 'The contract is self-contained (valibot only).' },
  webHost: { regex: '(^|/)hosts/web(/|$)', message: 'The Electron bundle contains no web-host code.' },
  sandboxCore: {
    regex: '(^|/)main/(?!core/(wire|money)(/|$))',
    message: 'The sandbox imports from main only the wire profile (and money); see docs/sandbox.md.',
  },
}
const boundary = (files, ignores, parts, electronAllowed = false) => ({
  files,
  ...(ignores.length ? { ignores } : {}),
  rules: {
    'no-restricted-imports': [
      'error',
      { ...(electronAllowed ? {} : rule.electron), patterns: parts.map(({ regex, message }) => ({ regex, message })) },
    ],
  },
})
const TESTS = ['**/*.test.ts']

/**
 * The core's layers, bottom to top, and what each may import besides itself (default-deny, as VS Code's
 * code-layering rule): an import into a layer not listed, into a folder of main/core that is not a layer,
 * or out of the core (hosts, sandbox, testing, the entry, anything but main/contract) is a lint error.
 * Bottom first: a layer may list only layers listed before it, so the table itself cannot admit an import
 * that runs up the order (loading this file throws otherwise). The lists are the real import graph
 * (`npm run graph` draws it); a new edge is a deliberate edit here. .dependency-cruiser.mjs reads this table.
 * `contract` is main/contract (the typed contract, self-contained), not a folder of the core.
 * Exceptions: none. (policy sits above session because policy/gate.ts feeds the engine the selected
 * session's reads; the engine, rules and book themselves import neither session nor ipc.)
 */
export const CORE_LAYERS = [
  ['contract', []],
  ['errors', ['contract']], // DeskError itself lives in main/contract/errors.ts (one class for the core and the CLI)
  ['money', ['errors']],
  ['wire', ['errors']],
  ['config', ['errors', 'wire']],
  ['vault', ['contract', 'errors']], // contract: the shared display format (a key's default label)
  ['journal', ['errors']],
  ['team', ['errors', 'money']], // the shared team store (PostgreSQL)
  ['security', ['errors', 'vault']],
  ['exchange', ['contract', 'errors', 'wire', 'vault', 'journal']],
  ['streams', ['errors', 'exchange']],
  ['ipc', ['contract', 'errors', 'vault']],
  ['session', ['errors', 'money', 'wire', 'config', 'vault', 'journal', 'exchange', 'streams']],
  ['policy', ['contract', 'errors', 'money', 'config', 'journal', 'ipc', 'session']],
  // The one write pipeline every write kind walks (decision step included: team mode plugs in there).
  ['writes', ['contract', 'errors', 'money', 'wire', 'config', 'vault', 'journal', 'exchange', 'streams', 'ipc', 'session', 'policy']],
  // Features use each other only through their index (checked below); everything under them is theirs.
  [
    'features',
    [
      'contract',
      'errors',
      'money',
      'wire',
      'config',
      'vault',
      'journal',
      'team',
      'security',
      'exchange',
      'streams',
      'ipc',
      'session',
      'policy',
      'writes',
    ],
  ],
  // The composition root.
  [
    'app',
    [
      'contract',
      'errors',
      'money',
      'wire',
      'config',
      'vault',
      'journal',
      'team',
      'security',
      'exchange',
      'streams',
      'ipc',
      'session',
      'policy',
      'writes',
      'features',
    ],
  ],
]
const MAY_IMPORT = new Map(CORE_LAYERS.map(([layer, allowed]) => [layer, allowed]))
CORE_LAYERS.forEach(([layer, allowed], rank) => {
  for (const lower of allowed) {
    const at = CORE_LAYERS.findIndex(([l]) => l === lower)
    if (at < 0 || at >= rank) throw new Error(`eslint.config.js CORE_LAYERS: ${layer} may import only layers below it, not ${lower}`)
  }
})
// Tests and test harnesses may import anything in the core (docs/architecture.md); their own block below.
const CORE_NOT_LAYERED = [...TESTS, 'main/core/**/testing/**', 'main/core/**/testdata/**']

/** Where a repo-relative path sits: a core layer (with its feature and the rest of the path), or what it is outside the core. */
function placeOf(relPath) {
  const p = relPath.split(path.sep).join('/')
  if (/(^|\/)(testing|testdata)(\/|$)|test-support/.test(p)) return { outside: rule.testing.message }
  if (p === 'main/contract' || p.startsWith('main/contract/')) return { layer: 'contract' }
  const core = /^main\/core\/([^/]+)(?:\/(.*))?$/.exec(p)
  if (core) {
    const [, layer, rest = ''] = core
    if (layer === 'contract' || !MAY_IMPORT.has(layer))
      return { outside: `main/core/${layer} is not a layer of the core: add it to CORE_LAYERS (eslint.config.js) with what it may import.` }
    if (layer !== 'features') return { layer }
    const [feature = '', ...inner] = rest.split('/')
    return { layer, feature, inner: inner.join('/') }
  }
  if (/^main\/hosts(\/|$)/.test(p)) return { outside: rule.hosts.message }
  if (/^sandbox(\/|$)/.test(p)) return { outside: rule.sandbox.message }
  if (/^main\/index(\.ts)?$/.test(p)) return { outside: 'Nothing imports the Electron entry.' }
  return { outside: `The core imports only its lower layers and main/contract, not ${p}.` }
}

const coreLayersRule = {
  meta: { type: 'problem', schema: [], docs: { description: 'Imports of main/core follow the layer table (CORE_LAYERS, default-deny).' } },
  create(context) {
    const from = placeOf(path.relative(ROOT, context.filename))
    if (!from.layer) return { Program: (node) => context.report({ node, message: from.outside }) }
    const check = (node) => {
      const spec = node?.type === 'Literal' && typeof node.value === 'string' ? node.value : null
      if (!spec || !spec.startsWith('.')) return // packages: electron is refused by no-restricted-imports
      const to = placeOf(path.relative(ROOT, path.resolve(path.dirname(context.filename), spec)))
      const here = `main/core/${from.layer}${from.feature ? `/${from.feature}` : ''}`
      if (to.outside) return context.report({ node, message: `${here}: ${to.outside}` })
      if (to.layer === from.layer && to.layer !== 'features') return
      if (to.layer === 'features') {
        if (from.layer === 'features' && from.feature === to.feature) return
        if (to.inner && !/^index(\.ts)?$/.test(to.inner)) {
          return context.report({
            node,
            message: `${here}: a feature is used only through its index (import '…/features/${to.feature}', not '${spec}').`,
          })
        }
        if (from.layer === 'features') return
      }
      const allowed = MAY_IMPORT.get(from.layer)
      if (!allowed.includes(to.layer)) {
        const target = to.layer === 'contract' ? 'main/contract' : `main/core/${to.layer}`
        context.report({
          node,
          message: `${here} may not import ${target} ('${spec}'): main/core/${from.layer} may import only ${allowed.join(', ') || 'itself'} (CORE_LAYERS in eslint.config.js, docs/architecture.md).`,
        })
      }
    }
    return importVisitors(check)
  },
}

/** Every way a file names another: imports (type-only too), re-exports, dynamic imports, import types. */
function importVisitors(check) {
  return {
    ImportDeclaration: (n) => check(n.source),
    ExportNamedDeclaration: (n) => check(n.source),
    ExportAllDeclaration: (n) => check(n.source),
    ImportExpression: (n) => check(n.source),
    TSImportEqualsDeclaration: (n) => check(n.moduleReference?.expression),
    TSImportType: (n) => check(n.source ?? n.argument?.literal ?? n.argument),
  }
}

/**
 * The desk CLI talks to the core only through the typed contract, as the renderer does: a file of
 * main/hosts/cli imports main/contract, its own folder and packages, nothing else of the repo.
 * The one exception is core-client.ts, the CLI host's composition root (the Electron entry and the
 * web host have theirs): it starts the in-process core, attaches to a running app (hosts/attach)
 * and hands the CLI the core's Node-side helpers (default data directory, secret-file reader).
 * Tests and testing/ are exempt (they start sandboxes and vaults).
 */
const CLI_COMPOSITION_ROOT = 'main/hosts/cli/core-client.ts'
const cliContractOnlyRule = {
  meta: {
    type: 'problem',
    schema: [],
    docs: { description: 'main/hosts/cli imports only main/contract and its own files (core-client.ts excepted).' },
  },
  create(context) {
    const check = (node) => {
      const spec = node?.type === 'Literal' && typeof node.value === 'string' ? node.value : null
      if (!spec || !spec.startsWith('.')) return // packages (node:, viem); electron is refused by no-restricted-imports
      const to = path
        .relative(ROOT, path.resolve(path.dirname(context.filename), spec))
        .split(path.sep)
        .join('/')
      if (/^main\/(contract|hosts\/cli)(\/|$)/.test(to)) return
      context.report({
        node,
        message: `main/hosts/cli imports only main/contract and its own files, not ${to} ('${spec}'); the core is reached through ${CLI_COMPOSITION_ROOT}, the CLI's composition root (the one exception).`,
      })
    }
    return importVisitors(check)
  },
}
const deskPlugin = { rules: { 'core-layers': coreLayersRule, 'cli-contract-only': cliContractOnlyRule } }

export default tseslint.config(
  {
    ignores: [
      'node_modules/**',
      'out/**',
      'dist/**',
      '.native-cache/**',
      'e2e/artifacts/**',
      'docs/**',
      '.tmp/**',
      // Vite's bundled config, written beside the config for the length of a build (npm test lints while it builds).
      '**/*.config.ts.*.mjs',
      '**/*.timestamp-*.mjs',
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  ...pluginVue.configs['flat/recommended'],
  {
    files: ['**/*.vue'],
    languageOptions: { parserOptions: { parser: tseslint.parser, extraFileExtensions: ['.vue'] } },
  },
  {
    languageOptions: { globals: { ...globals.node }, ecmaVersion: 2023, sourceType: 'module' },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none' }],
      '@typescript-eslint/no-explicit-any': 'error',
      'no-restricted-imports': ['error', rule.electron],
      'no-restricted-globals': [
        'error',
        { name: 'parseFloat', message: 'Money is parsed exactly (main/core/money/decimal.ts), never as a float.' },
      ],
      'vue/multi-word-component-names': 'off',
      'vue/max-attributes-per-line': 'off',
      'vue/singleline-html-element-content-newline': 'off',
      'vue/html-self-closing': 'off',
    },
  },
  // Layout is Prettier's (checked by `npm run lint`): the style rules it owns are off.
  eslintConfigPrettier,
  // The core's production files: every relative import is judged by the layer table (default-deny);
  // electron stays forbidden by the base block's no-restricted-imports.
  {
    files: ['main/core/**/*.ts'],
    ignores: CORE_NOT_LAYERED,
    plugins: { desk: deskPlugin },
    rules: { 'desk/core-layers': 'error' },
  },
  // Core tests may use the sandbox and the test harnesses, never Electron or a host.
  boundary(['main/core/**/*.test.ts', 'main/core/**/testing/**', 'main/core/**/testdata/**'], [], [rule.hosts, rule.entry]),
  boundary(['main/contract/**/*.ts'], [], [rule.leaveContract]),
  // Hosts: only hosts/dev brings the sandbox in; none imports test code.
  boundary(['main/hosts/**/*.ts'], [...TESTS, 'main/hosts/dev/**'], [rule.sandbox, rule.testing, rule.entry]),
  boundary(['main/hosts/dev/**/*.ts'], TESTS, [rule.testing, rule.entry]),
  // The desk CLI: main/contract and its own files only; core-client.ts (its composition root) excepted.
  {
    files: ['main/hosts/cli/**/*.ts'],
    ignores: [...TESTS, 'main/hosts/cli/testing/**', CLI_COMPOSITION_ROOT],
    plugins: { desk: deskPlugin },
    rules: { 'desk/cli-contract-only': 'error' },
  },
  // The Electron entry and its shell: no web-host code, no direct sandbox import, no test code.
  boundary(['main/index.ts'], [], [rule.webHost, rule.sandbox, rule.testing], true),
  boundary(['main/electron-shell/**/*.ts'], TESTS, [rule.hosts, rule.sandbox, rule.testing]),
  boundary(['main/testing/**/*.ts'], [], [rule.entry]),
  boundary(['preload/**/*.ts'], [], [rule.mainOutsideContract, rule.sandbox], true),
  {
    files: ['renderer/**/*.{ts,vue}'],
    languageOptions: { globals: { ...globals.browser } },
  },
  boundary(['renderer/**/*.{ts,vue}'], [], [rule.mainOutsideContract, rule.sandbox]),
  boundary(['sandbox/**/*.ts'], [...TESTS, 'sandbox/conformance/**', 'sandbox/testing/**'], [rule.sandboxCore, rule.hosts, rule.testing]),
  {
    // Tests poke at malformed payloads on purpose.
    files: ['**/*.test.ts', 'sandbox/conformance/**', 'sandbox/testing/**'],
    rules: { '@typescript-eslint/no-explicit-any': 'off' },
  },
  {
    files: ['**/*.mjs', 'e2e/stub-electron/**'],
    languageOptions: { globals: { ...globals.node } },
  },
)
