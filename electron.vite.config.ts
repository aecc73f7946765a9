import { resolve } from 'node:path'
import vue from '@vitejs/plugin-vue'
import { defineConfig } from 'electron-vite'
import { modulePreloadEntryImports, webRendererBuild } from './renderer/vite.web.config'

// Three roots (and a fourth output, the web renderer): main (Node, the only place that imports electron), preload (sandboxed, CJS,
// fully bundled) and renderer (Vue, untrusted).
export default defineConfig({
  main: {
    build: {
      outDir: 'out/main',
      externalizeDeps: true,
      rollupOptions: { input: { index: resolve(__dirname, 'main/index.ts') } },
    },
  },
  preload: {
    build: {
      outDir: 'out/preload',
      externalizeDeps: false,
      rollupOptions: {
        input: { index: resolve(__dirname, 'preload/index.ts') },
        external: ['electron'],
        output: { format: 'cjs', entryFileNames: '[name].cjs' },
      },
    },
  },
  // The Electron renderer: its entry expects the preload's `window.desk`. The web renderer
  // (WebSocket adapter, for the loopback web host) is a separate build into out/renderer-web.
  renderer: {
    root: 'renderer',
    plugins: [vue(), modulePreloadEntryImports(), webRendererBuild()],
    build: {
      outDir: 'out/renderer',
      rollupOptions: { input: { index: resolve(__dirname, 'renderer/index.html') } },
    },
  },
})
