import { availableParallelism } from 'node:os'
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
    // vitest's default is CPUs - 1: one file at a time on a 2-core CI machine, where most of the
    // wall time went on starting each file's process and on waits for sandboxes and timers. Two
    // there; the default (CPUs - 1) on larger machines.
    maxWorkers: Math.max(2, availableParallelism() - 1),
    // The JSON report feeds the one-line summary `npm test` ends with (bin/test-summary.mjs).
    reporters: ['default', 'json'],
    outputFile: { json: '.tmp/test-results/unit.json' },
  },
})
