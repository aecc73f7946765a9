/** The settings feature's channels. */

import * as v from 'valibot'
import type { SettingsView } from './settings.types'
import { intent, query } from './common.channel'
import { none } from './common.schemas'

const pct = v.pipe(v.number(), v.minValue(0), v.maxValue(100))

export const settingsChannels = {
  'settings.get': query<SettingsView>()(none),
  'settings.update': intent<SettingsView>()(
    v.object({
      autoLockMinutes: v.optional(v.pipe(v.number(), v.integer(), v.minValue(1), v.maxValue(24 * 60))),
      passphraseWindowMinutes: v.optional(v.pipe(v.number(), v.integer(), v.minValue(0), v.maxValue(24 * 60))),
      warningThresholds: v.optional(v.object({ watchPct: pct, warningPct: pct, criticalPct: pct })),
      theme: v.optional(v.picklist(['dark', 'light'] as const)),
    }),
  ),
} as const
