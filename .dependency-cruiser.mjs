/**
 * dependency-cruiser: the drawing of the import graph (`npm run graph`) and its check (`npm run graph:check`).
 * The layer rules come from the one table lint uses (CORE_LAYERS in eslint.config.js), so the drawing,
 * the check and `npm run lint` cannot disagree. ESM (.mjs) so it can import that table.
 */
import { CORE_LAYERS } from './eslint.config.js'

const LAYERS = CORE_LAYERS.map(([layer]) => layer)
const CORE_FOLDERS = LAYERS.filter((layer) => layer !== 'contract')
// The drawing is of folders: each layer of the core (each feature apart), the contract, hosts, entry, shell.
export const FOLDERS = '^main/core/features/[^/]+|^main/core/[^/]+|^main/hosts/[^/]+|^main/[^/.]+|^preload'
const layerPath = (layer) => (layer === 'contract' ? '^main/contract/' : `^main/core/${layer}/`)
// Tests and harnesses may import anything; they are neither drawn nor checked.
const NOT_LAYERED = '\\.test\\.ts$|(^|/)(testing|testdata)/'

/** @type {import('dependency-cruiser').IConfiguration} */
export default {
  forbidden: [
    ...CORE_LAYERS.map(([layer, allowed]) => ({
      name: `layer-${layer}`,
      comment: `${layer === 'contract' ? 'main/contract' : `main/core/${layer}`} may import only: ${allowed.join(', ') || 'itself'} (CORE_LAYERS, eslint.config.js)`,
      severity: 'error',
      from: { path: layerPath(layer), pathNot: NOT_LAYERED },
      to: { path: '^main/(core|contract)/', pathNot: [layerPath(layer), ...allowed.map(layerPath)] },
    })),
    {
      name: 'core-undeclared-layer',
      comment: 'Every folder of main/core is a layer of CORE_LAYERS (eslint.config.js).',
      severity: 'error',
      from: {},
      to: { path: '^main/core/', pathNot: `^main/core/(${CORE_FOLDERS.join('|')})/` },
    },
    {
      name: 'feature-through-index',
      comment: 'A feature is used by another feature only through its index.',
      severity: 'error',
      from: { path: '^main/core/features/([^/]+)/', pathNot: NOT_LAYERED },
      to: { path: '^main/core/features/[^/]+/.+', pathNot: ['^main/core/features/$1/', '^main/core/features/[^/]+/index\\.ts$'] },
    },
    {
      // Each file stands above what it uses: a circle (type-only imports count) is an error anywhere
      // in our code, main, preload, the sandbox and the renderer alike.
      name: 'no-circular',
      comment: 'No import circle: move what both files need into a file both import.',
      severity: 'error',
      from: { pathNot: NOT_LAYERED },
      to: { circular: true, pathNot: NOT_LAYERED },
    },
    {
      name: 'feature-through-index-from-outside',
      comment: 'Outside the features, a feature is used only through its index.',
      severity: 'error',
      from: { pathNot: `^main/core/features/|${NOT_LAYERED}` },
      to: { path: '^main/core/features/[^/]+/.+', pathNot: '^main/core/features/[^/]+/index\\.ts$' },
    },
  ],
  options: {
    // Our own modules only: packages and Node built-ins are neither drawn nor layered (lint refuses electron).
    includeOnly: { path: '^(main|preload|sandbox|renderer/src)/' },
    doNotFollow: { path: 'node_modules' },
    exclude: { path: `${NOT_LAYERED}|^node_modules/` },
    // Type-only imports count: lint sees them too, and a type is a dependency on the layer that owns it.
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    cache: { folder: '.tmp/depcruise-cache', strategy: 'content' },
    reporterOptions: {
      // (the mermaid drawing gets the same pattern on the command line: depcruise-fmt has no option for it)
      dot: { collapsePattern: FOLDERS },
      archi: { collapsePattern: FOLDERS },
      mermaid: { minify: false },
    },
  },
}
