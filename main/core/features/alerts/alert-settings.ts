import type { AlertKind, AlertSettingsView } from '../../../contract/types'
import { DeskError } from '../../errors/desk-error'
import type { AlertLog } from '../../journal'

/** Settings as stored: the view plus when alerts were first armed (events before it never alert). */
export interface StoredAlertSettings extends AlertSettingsView {
  armedSinceMs: number
}

export const DEFAULT_ALERT_SETTINGS: AlertSettingsView = {
  rules: {
    'funds-received': true,
    ltv: true,
    'order-filled': true,
    'earn-claimable': true,
    'agent-slot-empty': true,
    'write-unresolved': true,
    'team-approval': true,
    'team-proposal': true,
  },
  ltvThresholdsPct: [80, 90],
  quietHours: null,
  // The timer pass for what streams do not drive (earn, unresolved writes, agent slots, LTV on moved marks);
  // it reads no /info per account when live state is present.
  checkIntervalSec: 60,
  desktopNotifications: true,
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
    ltvThresholdsPct: Array.isArray(parsed.ltvThresholdsPct)
      ? parsed.ltvThresholdsPct.filter(isThreshold)
      : DEFAULT_ALERT_SETTINGS.ltvThresholdsPct,
    quietHours:
      parsed.quietHours === undefined || (parsed.quietHours !== null && !isQuietHours(parsed.quietHours))
        ? DEFAULT_ALERT_SETTINGS.quietHours
        : parsed.quietHours,
    checkIntervalSec:
      typeof parsed.checkIntervalSec === 'number' && parsed.checkIntervalSec >= 1
        ? parsed.checkIntervalSec
        : DEFAULT_ALERT_SETTINGS.checkIntervalSec,
    desktopNotifications:
      typeof parsed.desktopNotifications === 'boolean' ? parsed.desktopNotifications : DEFAULT_ALERT_SETTINGS.desktopNotifications,
    armedSinceMs: typeof parsed.armedSinceMs === 'number' ? parsed.armedSinceMs : now,
  }
  if (raw === null || typeof parsed.armedSinceMs !== 'number') log.saveSettingsJson(JSON.stringify(s))
  return s
}

const HHMM = /^([01][0-9]|2[0-3]):[0-5][0-9]$/

/** 0 to 100 percent with at most 2 decimals: the share of a credit line in use, as the operator types it. */
export function isThreshold(x: unknown): x is number {
  return typeof x === 'number' && Number.isFinite(x) && x >= 0 && x <= 100 && /^[0-9]{1,3}(\.[0-9]{1,2})?$/.test(String(x))
}

function isQuietHours(q: unknown): q is { start: string; end: string } {
  const o = q as { start?: unknown; end?: unknown } | null
  return (
    typeof o === 'object' &&
    o !== null &&
    typeof o.start === 'string' &&
    typeof o.end === 'string' &&
    HHMM.test(o.start) &&
    HHMM.test(o.end)
  )
}

/**
 * Checked in main whoever calls (the contract's schema is one gate; a host that skips it is not
 * trusted either): thresholds 0-100 with at most 2 decimals, at most 5, quiet hours "HH:MM" with
 * start and end apart, a whole check interval of 1 s to 1 h.
 */
export function validatePatch(patch: AlertSettingsPatch): void {
  const bad = (field: string, message: string): never => {
    throw new DeskError('InvalidAlertSettings', message, { field })
  }
  if (patch.ltvThresholdsPct !== undefined) {
    if (!Array.isArray(patch.ltvThresholdsPct) || patch.ltvThresholdsPct.length > 5)
      bad('ltvThresholdsPct', 'give at most 5 credit-line thresholds')
    for (const t of patch.ltvThresholdsPct)
      if (!isThreshold(t)) bad('ltvThresholdsPct', `threshold ${String(t)} must be a percent from 0 to 100 with at most 2 decimals`)
  }
  if (patch.quietHours !== undefined && patch.quietHours !== null) {
    if (!isQuietHours(patch.quietHours)) bad('quietHours', 'quiet hours need a start and an end as HH:MM (00:00 to 23:59)')
    if (patch.quietHours.start === patch.quietHours.end)
      bad('quietHours', 'quiet hours start and end at the same time: turn them off instead')
  }
  if (
    patch.checkIntervalSec !== undefined &&
    !(Number.isInteger(patch.checkIntervalSec) && patch.checkIntervalSec >= 1 && patch.checkIntervalSec <= 3600)
  )
    bad('checkIntervalSec', 'the check interval is a whole number of seconds from 1 to 3600')
  if (patch.desktopNotifications !== undefined && typeof patch.desktopNotifications !== 'boolean')
    bad('desktopNotifications', 'desktop notifications are on or off')
}

export function applyPatch(log: AlertLog, current: StoredAlertSettings, patch: AlertSettingsPatch): StoredAlertSettings {
  validatePatch(patch)
  const next: StoredAlertSettings = {
    ...current,
    rules: { ...current.rules, ...Object.fromEntries(Object.entries(patch.rules ?? {}).filter(([, v]) => typeof v === 'boolean')) },
    ...(patch.ltvThresholdsPct !== undefined ? { ltvThresholdsPct: [...new Set(patch.ltvThresholdsPct)].sort((a, b) => a - b) } : {}),
    ...(patch.quietHours !== undefined ? { quietHours: patch.quietHours } : {}),
    ...(patch.checkIntervalSec !== undefined ? { checkIntervalSec: patch.checkIntervalSec } : {}),
    ...(patch.desktopNotifications !== undefined ? { desktopNotifications: patch.desktopNotifications } : {}),
  }
  log.saveSettingsJson(JSON.stringify(next))
  return next
}

export function settingsView(s: StoredAlertSettings): AlertSettingsView {
  return {
    rules: { ...s.rules },
    ltvThresholdsPct: [...s.ltvThresholdsPct],
    quietHours: s.quietHours,
    checkIntervalSec: s.checkIntervalSec,
    desktopNotifications: s.desktopNotifications,
  }
}
