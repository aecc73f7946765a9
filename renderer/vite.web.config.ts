import { resolve } from 'node:path'
import vue from '@vitejs/plugin-vue'
import { build, defineConfig, type HtmlTagDescriptor, type InlineConfig, type Plugin, type Rollup } from 'vite'

/**
 * The renderer's entry (app/main.ts) sends the page's first calls and then imports the app
 * (app/start.ts) dynamically, so the host answers those calls while the app's bundle is fetched
 * and evaluated. This puts the app's chunks and stylesheets in index.html as modulepreload and
 * stylesheet links, so they are fetched with the entry, as static imports would be, not after it.
 */
export function modulePreloadEntryImports(): Plugin {
  return {
    name: 'desk-modulepreload-entry-imports',
    apply: 'build',
    transformIndexHtml: {
      order: 'post',
      handler(_html, ctx) {
        const bundle = ctx.bundle
        const entry = ctx.chunk
        if (!bundle || !entry) return []
        // Dependencies first: the stylesheets keep the order static imports would give them.
        const seen = new Set<string>([entry.fileName])
        const chunks: Rollup.OutputChunk[] = []
        const visit = (file: string) => {
          const c = bundle[file]
          if (!c || c.type !== 'chunk' || seen.has(file)) return
          seen.add(file)
          c.imports.forEach(visit)
          chunks.push(c)
        }
        entry.dynamicImports.forEach(visit)
        const tags: HtmlTagDescriptor[] = []
        for (const c of chunks) {
          tags.push({ tag: 'link', attrs: { rel: 'modulepreload', crossorigin: true, href: `./${c.fileName}` }, injectTo: 'head' })
          for (const css of c.viteMetadata?.importedCss ?? [])
            tags.push({ tag: 'link', attrs: { rel: 'stylesheet', crossorigin: true, href: `./${css}` }, injectTo: 'head' })
        }
        return tags
      },
    },
  }
}

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
  plugins: [vue(), modulePreloadEntryImports()],
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
