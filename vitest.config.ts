import { defineConfig } from 'vitest/config'

// Unit and integration tests (Node). Browser end-to-end tests live in e2e/ with their own config.
export default defineConfig({
  test: {
    include: ['main/**/*.test.ts', 'preload/**/*.test.ts', 'sandbox/**/*.test.ts', 'renderer/**/*.test.ts', 'bin/**/*.test.ts'],
    exclude: ['node_modules', 'out', 'dist'],
    environment: 'node',
    testTimeout: 30_000,
    hookTimeout: 30_000,
    pool: 'forks',
  },
})
