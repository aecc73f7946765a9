import { resolve } from 'node:path'
import vue from '@vitejs/plugin-vue'
import { build, defineConfig, type InlineConfig, type Plugin } from 'vite'

/**
 * The web build of the renderer (out/renderer-web), served by the loopback web host for
 * browser tests and development. Its entry installs the WebSocket adapter as `window.desk`;
 * the Electron build (out/renderer) has only the preload's bridge and never contains the
 * adapter (checked by e2e/renderer-bundles.e2e.test.ts).
 */
export const webRendererConfig: InlineConfig = {
  configFile: false,
  root: resolve(__dirname, 'web'),
  base: './',
  plugins: [vue()],
  logLevel: 'warn',
  build: {
    outDir: resolve(__dirname, '../out/renderer-web'),
    emptyOutDir: true,
    rollupOptions: { input: { index: resolve(__dirname, 'web/index.html') } },
  },
}

/**
 * Builds the web renderer right after the Electron renderer, so `electron-vite build` (used by
 * `npm run build`, `npm run web` and `npm run test:e2e`) produces both outputs.
 */
export function webRendererBuild(): Plugin {
  return {
    name: 'desk-web-renderer-build',
    apply: 'build',
    async closeBundle() {
      await build(webRendererConfig)
    },
  }
}

// `vite build -c renderer/vite.web.config.ts` builds only the web renderer.
export default defineConfig(webRendererConfig)
