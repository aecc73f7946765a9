/**
 * The credit chart's time axis: it spans the samples it shows (not the chosen window, which
 * would squeeze an hour of samples into the right edge of a week), and reads local 24-hour time
 * as the rest of the desk does (main/contract/format `formatTime`).
 */

/** The x range (Unix seconds) for samples from `min` to `max`: their span and a little air; one sample gets a minute either side. */
export function fitTimeRange(min: number | null, max: number | null): [number, number] {
  if (min === null || max === null || !Number.isFinite(min) || !Number.isFinite(max)) {
    const now = Date.now() / 1000
    return [now - 3600, now]
  }
  if (max - min < 1) return [min - 60, max + 60]
  const pad = (max - min) * 0.02
  return [min - pad, max + pad]
}

const two = (n: number) => String(n).padStart(2, '0')

/**
 * Tick labels for ticks at `splits` (Unix seconds) over a range of `spanS` seconds, local 24-hour:
 * "14:05:30" within 10 minutes, "14:05" within two days, "11-28 14:05" beyond.
 */
export function timeTickLabels(splits: number[], spanS: number): string[] {
  return splits.map((s) => {
    const d = new Date(s * 1000)
    const hm = `${two(d.getHours())}:${two(d.getMinutes())}`
    if (spanS <= 600) return `${hm}:${two(d.getSeconds())}`
    if (spanS <= 2 * 86_400) return hm
    return `${two(d.getMonth() + 1)}-${two(d.getDate())} ${hm}`
  })
}

/** The operator's zone as the desk writes it after a time ("UTC", "CET", "GMT+1"). */
export function localZoneName(atMs = Date.now()): string {
  const part = new Intl.DateTimeFormat('en-US', { timeZoneName: 'short' })
    .formatToParts(new Date(atMs))
    .find((p) => p.type === 'timeZoneName')
  return part?.value ?? ''
}
