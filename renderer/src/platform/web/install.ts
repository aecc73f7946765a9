import { createWebBridge } from './web-adapter'

// A page opened by Electron already has the preload bridge; never replace it.
if (!window.desk) window.desk = createWebBridge(window.location)
