import { describe, expect, it } from 'vitest'
import { fitTimeRange, timeTickLabels } from './chart-axis'

describe('credit chart time axis', () => {
  it('spans the samples, not the chosen window: a few minutes of samples fill the chart', () => {
    const [a, b] = fitTimeRange(1_000_000, 1_000_300)
    expect(a).toBeLessThan(1_000_000)
    expect(a).toBeGreaterThan(1_000_000 - 30)
    expect(b).toBeGreaterThan(1_000_300)
    expect(b).toBeLessThan(1_000_300 + 30)
  })

  it('gives one sample a minute either side (never years)', () => {
    expect(fitTimeRange(5000, 5000)).toEqual([4940, 5060])
  })

  it('labels ticks in local 24-hour time, with seconds for short spans and the date for long ones', () => {
    const t = new Date(2026, 10, 28, 14, 5, 30).getTime() / 1000
    expect(timeTickLabels([t], 300)).toEqual(['14:05:30'])
    expect(timeTickLabels([t], 3600)).toEqual(['14:05'])
    expect(timeTickLabels([t], 7 * 86_400)).toEqual(['11-28 14:05'])
    expect(timeTickLabels([new Date(2026, 10, 28, 23, 0).getTime() / 1000], 3600)).toEqual(['23:00'])
  })
})
