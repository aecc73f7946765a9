import type { AlertKind, AlertSettingsView } from '../../../contract/types'
import type { AlertLog } from '../../journal'

export const ALERT_KINDS: readonly AlertKind[] = ['funds-received', 'ltv', 'order-filled', 'earn-claimable', 'agent-slot-empty', 'write-unresolved']

/** Settings as stored: the view plus when alerts were first armed (events before it never alert). */
export interface StoredAlertSettings extends AlertSettingsView {
  armedSinceMs: number
}

export const DEFAULT_ALERT_SETTINGS: AlertSettingsView = {
  rules: { 'funds-received': true, ltv: true, 'order-filled': true, 'earn-claimable': true, 'agent-slot-empty': true, 'write-unresolved': true },
  ltvThresholdsPct: [80, 90],
  quietHours: null,
  // Each pass costs a few /info reads per account on the background lane (1 request/s by default).
  checkIntervalSec: 60,
}

export type AlertSettingsPatch = Partial<Omit<AlertSettingsView, 'rules'>> & { rules?: Partial<Record<AlertKind, boolean>> | undefined }

/** Reads the stored settings (defaults for anything missing or damaged); first use arms alerts from `now`. */
export function loadAlertSettings(log: AlertLog, now: number): StoredAlertSettings {
  const raw = log.settingsJson()
  let parsed: Partial<StoredAlertSettings> = {}
  if (raw !== null) {
    try {
      parsed = JSON.parse(raw) as Partial<StoredAlertSettings>
    } catch {
      parsed = {}
    }
  }
  const s: StoredAlertSettings = {
    rules: { ...DEFAULT_ALERT_SETTINGS.rules, ...(parsed.rules ?? {}) },
    ltvThresholdsPct: Array.isArray(parsed.ltvThresholdsPct) ? parsed.ltvThresholdsPct.filter((x) => typeof x === 'number' && x > 0) : DEFAULT_ALERT_SETTINGS.ltvThresholdsPct,
    quietHours: parsed.quietHours === undefined ? DEFAULT_ALERT_SETTINGS.quietHours : parsed.quietHours,
    checkIntervalSec: typeof parsed.checkIntervalSec === 'number' && parsed.checkIntervalSec >= 1 ? parsed.checkIntervalSec : DEFAULT_ALERT_SETTINGS.checkIntervalSec,
    armedSinceMs: typeof parsed.armedSinceMs === 'number' ? parsed.armedSinceMs : now,
  }
  if (raw === null || typeof parsed.armedSinceMs !== 'number') log.saveSettingsJson(JSON.stringify(s))
  return s
}

export function applyPatch(log: AlertLog, current: StoredAlertSettings, patch: AlertSettingsPatch): StoredAlertSettings {
  const next: StoredAlertSettings = {
    ...current,
    rules: { ...current.rules, ...Object.fromEntries(Object.entries(patch.rules ?? {}).filter(([, v]) => typeof v === 'boolean')) },
    ...(patch.ltvThresholdsPct !== undefined ? { ltvThresholdsPct: [...new Set(patch.ltvThresholdsPct)].sort((a, b) => a - b) } : {}),
    ...(patch.quietHours !== undefined ? { quietHours: patch.quietHours } : {}),
    ...(patch.checkIntervalSec !== undefined ? { checkIntervalSec: patch.checkIntervalSec } : {}),
  }
  log.saveSettingsJson(JSON.stringify(next))
  return next
}

export function settingsView(s: StoredAlertSettings): AlertSettingsView {
  return { rules: { ...s.rules }, ltvThresholdsPct: [...s.ltvThresholdsPct], quietHours: s.quietHours, checkIntervalSec: s.checkIntervalSec }
}
