import { opensOnOverview, startEarlyCalls } from './bridge/early'

/** Sends the page's first calls over the bridge already installed (Electron's preload or the web adapter). */
export function sendFirstCalls(): void {
  if (window.desk) startEarlyCalls(window.desk, opensOnOverview(window.location.hash))
}
