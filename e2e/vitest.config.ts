import { defineConfig } from 'vitest/config'

// Browser end-to-end tests (Chromium via playwright-core against the loopback web host) and
// the stub-Electron test of the built main entry. `npm run test:e2e` builds first.
export default defineConfig({
  test: {
    include: ['e2e/**/*.e2e.test.ts'],
    environment: 'node',
    testTimeout: 120_000,
    hookTimeout: 120_000,
    pool: 'forks',
    fileParallelism: false,
    setupFiles: ['e2e/setup.ts'],
    reporters: ['default', 'json'],
    outputFile: { json: '.tmp/test-results/e2e.json' },
  },
})
