import js from '@eslint/js'
import pluginVue from 'eslint-plugin-vue'
import globals from 'globals'
import tseslint from 'typescript-eslint'

const electronOnlyInEntry = {
  paths: [{ name: 'electron', message: 'Only the Electron entry (main/index.ts) and the preload may import electron; the core stays Electron-free.' }],
}

export default tseslint.config(
  { ignores: ['node_modules/**', 'out/**', 'dist/**', '.native-cache/**', 'e2e/artifacts/**', 'docs/**'] },
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
      'no-restricted-imports': ['error', electronOnlyInEntry],
      'no-restricted-globals': ['error', { name: 'parseFloat', message: 'Money is parsed exactly (main/core/money/decimal.ts), never as a float.' }],
      'vue/multi-word-component-names': 'off',
      'vue/max-attributes-per-line': 'off',
      'vue/singleline-html-element-content-newline': 'off',
      'vue/html-self-closing': 'off',
    },
  },
  {
    // The only two places that may talk to Electron.
    files: ['main/index.ts', 'preload/**/*.ts'],
    rules: { 'no-restricted-imports': 'off' },
  },
  {
    files: ['renderer/**/*.{ts,vue}'],
    languageOptions: { globals: { ...globals.browser } },
    rules: {
      'no-restricted-imports': [
        'error',
        {
          ...electronOnlyInEntry,
          patterns: [{ group: ['**/main/core/**', '**/sandbox/**'], message: 'The renderer talks to main only through the typed contract (main/contract).' }],
        },
      ],
    },
  },
  {
    // Tests poke at malformed payloads on purpose.
    files: ['**/*.test.ts', 'sandbox/conformance/**'],
    rules: { '@typescript-eslint/no-explicit-any': 'off' },
  },
  {
    files: ['**/*.mjs', 'e2e/stub-electron/**'],
    languageOptions: { globals: { ...globals.node } },
  },
)
