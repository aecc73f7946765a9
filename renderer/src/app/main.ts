import { sendFirstCalls } from '../platform/boot'

// The renderer's entry. `window.desk` is already there: Electron's preload, or the web entry's
// adapter. The first calls go out now and the host answers them while the browser fetches and
// evaluates the app (Vue, Naive UI, the shell): this module stays free of both, and the app is
// a chunk of its own that index.html preloads (modulePreloadEntryImports in the Vite configs).
sendFirstCalls()
void import('./start')
