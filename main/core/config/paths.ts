import { homedir } from 'node:os'
import { join } from 'node:path'

/** Product name; Electron's userData folder is derived from it, and `desk` uses the same folder. */
export const APP_NAME = 'Treasury Desk'

/**
 * The app's data directory (vault, journal, settings), identical for the desktop app and `desk`
 * so both share one vault and one journal. Mirrors Electron's `app.getPath('userData')`.
 */
export function defaultDataDir(env: NodeJS.ProcessEnv = process.env, platform: NodeJS.Platform = process.platform): string {
  if (env.TREASURY_DESK_DATA_DIR) return env.TREASURY_DESK_DATA_DIR
  if (platform === 'win32') return join(env.APPDATA ?? join(homedir(), 'AppData', 'Roaming'), APP_NAME)
  if (platform === 'darwin') return join(homedir(), 'Library', 'Application Support', APP_NAME)
  return join(env.XDG_CONFIG_HOME ?? join(homedir(), '.config'), APP_NAME)
}
