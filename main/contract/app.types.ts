/** The app's own views: its state, notifications, and the `desk` launcher install (Settings). */

import type { NetworkView } from './networks.types'
import type { VaultStatus } from './vault.types'

export interface AppState {
  version: string
  network: NetworkView
  vault: VaultStatus
  /** The host driving the renderer: Electron or the loopback web host (tests, development). */
  host: 'electron' | 'web'
}

export interface NotificationEvent {
  id: string
  kind: 'fill' | 'rejection' | 'health' | 'stream' | 'lock' | 'info'
  level: 'info' | 'success' | 'warning' | 'error'
  title: string
  message: string
  atMs: number
  /** Alerts: false during the operator's quiet hours (recorded and shown in the panel, no desktop notification). */
  desktop?: boolean
}

/** Putting the packaged `desk` launcher on the operator's PATH (Settings; desktop app only). */
export interface CliInstallView {
  installed: boolean
  /** the link or launcher the terminal will run */
  path: string | null
  /** whether that directory is already on the PATH of this session */
  onPath: boolean
  message: string
}
