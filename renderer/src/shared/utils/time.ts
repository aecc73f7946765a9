/** Ages and countdowns for display; times are Unix ms (numbers are safe for times). */

export function formatDuration(ms: number): string {
  const s = Math.max(0, Math.floor(ms / 1000))
  if (s < 60) return `${s}s`
  const m = Math.floor(s / 60)
  if (m < 60) return `${m}m ${s % 60}s`
  const h = Math.floor(m / 60)
  if (h < 48) return `${h}h ${m % 60}m`
  return `${Math.floor(h / 24)}d ${h % 24}h`
}

/** "12s ago", or "never" when the time is unknown. */
export function formatAge(atMs: number | null, nowMs: number): string {
  if (atMs === null) return 'never'
  return `${formatDuration(nowMs - atMs)} ago`
}

/** Countdown to a time: "in 1m 05s" or "now" once reached; null time gives "—". */
export function formatCountdown(atMs: number | null, nowMs: number): string {
  if (atMs === null) return '—'
  return atMs <= nowMs ? 'now' : `in ${formatDuration(atMs - nowMs)}`
}

export function formatTime(ms: number | null): string {
  if (ms === null) return '—'
  const d = new Date(ms)
  const p = (n: number) => String(n).padStart(2, '0')
  return `${d.getFullYear()}-${p(d.getMonth() + 1)}-${p(d.getDate())} ${p(d.getHours())}:${p(d.getMinutes())}:${p(d.getSeconds())}`
}
