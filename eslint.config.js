import js from '@eslint/js'
import pluginVue from 'eslint-plugin-vue'
import globals from 'globals'
import tseslint from 'typescript-eslint'

// Import boundaries, one block per layer (docs/architecture.md). In a flat config a later block
// replaces an earlier block's options for the same rule, so each block lists all of its layer's
// restrictions, built by `boundary`.
const rule = {
  electron: { paths: [{ name: 'electron', message: 'Only the Electron entry (main/index.ts) and the preload import electron.' }] },
  hosts: { regex: '(^|/)hosts/', message: 'The core never imports a host; hosts sit on top of it.' },
  sandbox: { regex: '(^|/)sandbox(/|$)', message: 'Only main/hosts/dev imports the sandbox; the core gets it as a port.' },
  testing: { regex: '(^|/)(testing|testdata)(/|$)|test-support', message: 'Test-only code (testing/, testdata/) is imported only by tests, e2e and benches.' },
  entry: { regex: '(^|/)main/index$|^\\.\\./index$', message: 'Nothing imports the Electron entry.' },
  featureDeep: { regex: '(^|/)features/[^/]+/.+', message: "A feature is used only through its index (import '../features/<name>', not its files)." },
  featureSibling: { regex: '^\\.\\./(?!\\.\\.)[^/]+/.+', message: "Features use each other only through their index (import '../<feature>', not its files)." },
  mainOutsideContract: { regex: '(^|/)main/(?!contract(/|$))', message: 'The renderer and preload talk to main only through the typed contract (main/contract).' },
  leaveContract: { regex: '^\\.\\./', message: 'The contract is self-contained (valibot only).' },
  webHost: { regex: '(^|/)hosts/web(/|$)', message: 'The Electron bundle contains no web-host code.' },
  sandboxCore: { regex: '(^|/)main/(?!core/(wire|money)(/|$))', message: 'The sandbox imports from main only the wire profile (and money); see docs/sandbox.md.' },
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

export default tseslint.config(
  { ignores: ['node_modules/**', 'out/**', 'dist/**', '.native-cache/**', 'e2e/artifacts/**', 'docs/**', '.tmp/**'] },
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
      'no-restricted-globals': ['error', { name: 'parseFloat', message: 'Money is parsed exactly (main/core/money/decimal.ts), never as a float.' }],
      'vue/multi-word-component-names': 'off',
      'vue/max-attributes-per-line': 'off',
      'vue/singleline-html-element-content-newline': 'off',
      'vue/html-self-closing': 'off',
    },
  },
  // The core: Electron-free, host-free, sandbox-free, test-free; features only through their index.
  boundary(['main/core/**/*.ts'], [...TESTS, 'main/core/**/testing/**', 'main/core/**/testdata/**', 'main/core/features/**'], [rule.hosts, rule.sandbox, rule.testing, rule.entry, rule.featureDeep]),
  boundary(['main/core/features/**/*.ts'], TESTS, [rule.hosts, rule.sandbox, rule.testing, rule.entry, rule.featureDeep, rule.featureSibling]),
  // Core tests may use the sandbox and the test harnesses, never Electron or a host.
  boundary(['main/core/**/*.test.ts', 'main/core/**/testing/**', 'main/core/**/testdata/**'], [], [rule.hosts, rule.entry]),
  boundary(['main/contract/**/*.ts'], [], [rule.leaveContract]),
  // Hosts: only hosts/dev brings the sandbox in; none imports test code.
  boundary(['main/hosts/**/*.ts'], [...TESTS, 'main/hosts/dev/**'], [rule.sandbox, rule.testing, rule.entry]),
  boundary(['main/hosts/dev/**/*.ts'], TESTS, [rule.testing, rule.entry]),
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
