/** The settings feature's view. */

export interface SettingsView {
  autoLockMinutes: number
  passphraseWindowMinutes: number
  warningThresholds: { watchPct: number; warningPct: number; criticalPct: number }
  theme: 'dark' | 'light'
}
