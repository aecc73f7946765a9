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
    // Files run two at a time: each starts its own sandbox, web host, Chromium (fresh profile) and
    // PostgreSQL on ports and temp directories it picked, so none shares state with another. Two,
    // not vitest's default (CPUs - 1, one on a 2-core CI machine): the browser tests wait on the
    // page and the network most of the time.
    maxWorkers: 2,
    setupFiles: ['e2e/setup.ts'],
    reporters: ['default', 'json'],
    outputFile: { json: '.tmp/test-results/e2e.json' },
  },
})
