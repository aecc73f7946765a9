import { createWebBridge, reloadOnPastedToken, webHostToken } from './web-adapter'

// A page opened by Electron already has the preload bridge; never replace it.
if (!window.desk) {
  const token = webHostToken(window.location)
  const bridge = createWebBridge(window.location, WebSocket, token)
  window.desk = bridge
  reloadOnPastedToken(window, bridge, token)
}
