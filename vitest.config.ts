import vue from '@vitejs/plugin-vue'
import { defineConfig } from 'vitest/config'

// Unit and integration tests (Node). Browser end-to-end tests live in e2e/ with their own config.
export default defineConfig({
  // Renderer component tests import .vue files.
  plugins: [vue()],
  test: {
    include: [
      'tests/**/*.test.ts',
      'main/**/*.test.ts',
      'preload/**/*.test.ts',
      'sandbox/**/*.test.ts',
      'renderer/**/*.test.ts',
      'bin/**/*.test.ts',
    ],
    exclude: ['node_modules', 'out', 'dist'],
    environment: 'node',
    testTimeout: 30_000,
    hookTimeout: 30_000,
    pool: 'forks',
    // The JSON report feeds the one-line summary `npm test` ends with (bin/test-summary.mjs).
    reporters: ['default', 'json'],
    outputFile: { json: '.tmp/test-results/unit.json' },
  },
})
