/**
 * The app's own channels: its state, and the host services the window uses (file dialog, external
 * links, the `desk` launcher install). Two groups, so the assembled contract keeps its order.
 */

import * as v from 'valibot'
import type { AppState, CliInstallView } from './app.types'
import { intent, query } from './common.channel'
import { none, url } from './common.schemas'

export const appChannels = {
  'app.state': query<AppState>()(none),
} as const

export const appHostChannels = {
  /** Asks the host for a file path (Electron: native dialog; web host: null, the UI asks for a path). */
  'dialog.openFile': query<{ path: string | null }>()(v.object({ purpose: v.picklist(['keystore'] as const) })),
  'shell.openExternal': intent<{ opened: boolean }>()(v.object({ url })),
  /** Settings: link the packaged `desk` launcher into a per-user bin directory (desktop app only). */
  'app.installCli': intent<CliInstallView>()(none),
} as const
