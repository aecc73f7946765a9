import { describe, expect, it } from 'vitest'
import { isDeskError } from '../../errors/desk-error'
import type { AlertLog } from '../../journal'
import { applyPatch, isThreshold, loadAlertSettings, validatePatch, type AlertSettingsPatch } from './alert-settings'

/** The settings row of the alert log, in memory. */
function memLog(initial: string | null = null): AlertLog & { json: string | null } {
  const log = { json: initial, settingsJson: () => log.json, saveSettingsJson: (j: string) => void (log.json = j) }
  return log as unknown as AlertLog & { json: string | null }
}
const codeOf = (patch: AlertSettingsPatch): string => {
  try {
    validatePatch(patch)
    return 'ok'
  } catch (e) {
    return isDeskError(e) ? `${e.code}:${String(e.details?.field)}` : 'not a DeskError'
  }
}

describe('alert settings, checked in main', () => {
  it('LTV thresholds: 0 to 100 percent with at most 2 decimals', () => {
    for (const ok of [0, 1, 75.5, 80.25, 99.99, 100]) expect(isThreshold(ok), String(ok)).toBe(true)
    for (const bad of [-1, 100.01, 80.125, Number.NaN, Infinity, 1e-7]) expect(isThreshold(bad), String(bad)).toBe(false)
    expect(codeOf({ ltvThresholdsPct: [80, 90.5] })).toBe('ok')
    expect(codeOf({ ltvThresholdsPct: [80.125] })).toBe('InvalidAlertSettings:ltvThresholdsPct')
    expect(codeOf({ ltvThresholdsPct: [101] })).toBe('InvalidAlertSettings:ltvThresholdsPct')
    expect(codeOf({ ltvThresholdsPct: [1, 2, 3, 4, 5, 6] })).toBe('InvalidAlertSettings:ltvThresholdsPct')
  })

  it('quiet hours: HH:MM from 00:00 to 23:59, start and end apart', () => {
    expect(codeOf({ quietHours: { start: '22:00', end: '07:00' } })).toBe('ok')
    expect(codeOf({ quietHours: null })).toBe('ok')
    expect(codeOf({ quietHours: { start: '24:00', end: '07:00' } })).toBe('InvalidAlertSettings:quietHours')
    expect(codeOf({ quietHours: { start: '7:00', end: '08:00' } })).toBe('InvalidAlertSettings:quietHours')
    expect(codeOf({ quietHours: { start: '08:00', end: '08:00' } })).toBe('InvalidAlertSettings:quietHours')
  })

  it('a patch is applied whole or not at all, and persists desktop notifications off', () => {
    const log = memLog()
    const s = loadAlertSettings(log, 1000)
    expect(s.desktopNotifications).toBe(true)
    expect(() => applyPatch(log, s, { desktopNotifications: false, ltvThresholdsPct: [150] })).toThrow(/0 to 100/)
    expect(loadAlertSettings(log, 2000).desktopNotifications).toBe(true)
    const next = applyPatch(log, s, {
      desktopNotifications: false,
      ltvThresholdsPct: [90, 80.5, 90],
      quietHours: { start: '22:30', end: '06:45' },
    })
    expect(next).toMatchObject({ desktopNotifications: false, ltvThresholdsPct: [80.5, 90], quietHours: { start: '22:30', end: '06:45' } })
    expect(loadAlertSettings(log, 3000)).toMatchObject({ desktopNotifications: false, ltvThresholdsPct: [80.5, 90], armedSinceMs: 1000 })
  })

  it('a damaged stored row falls back to the defaults for the damaged fields only', () => {
    const log = memLog(
      JSON.stringify({
        ltvThresholdsPct: [85, 'x', 250],
        quietHours: { start: 'late', end: '07:00' },
        desktopNotifications: 'yes',
        armedSinceMs: 5,
      }),
    )
    expect(loadAlertSettings(log, 9)).toMatchObject({
      ltvThresholdsPct: [85],
      quietHours: null,
      desktopNotifications: true,
      armedSinceMs: 5,
    })
  })
})
