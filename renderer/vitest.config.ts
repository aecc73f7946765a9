import vue from '@vitejs/plugin-vue'
import { defineConfig } from 'vitest/config'

// Renderer component and store tests need the Vue SFC plugin; the root config runs Node tests.
export default defineConfig({
  plugins: [vue()],
  test: {
    include: ['renderer/src/**/*.test.ts'],
    environment: 'node',
    testTimeout: 30_000,
    pool: 'forks',
  },
})
