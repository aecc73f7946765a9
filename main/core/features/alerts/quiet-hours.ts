/**
 * Quiet hours: from `start` until `end` (local "HH:MM", the main process's time zone), no desktop
 * notification is shown; the alert is still recorded and pushed to the panel. A window may
 * span midnight (22:00-07:00). `start` equal to `end` is an empty window.
 */
export function inQuietHours(q: { start: string; end: string } | null, at: Date): boolean {
  if (!q) return false
  const mins = (hhmm: string) => {
    const [h, m] = hhmm.split(':').map(Number)
    return h! * 60 + m!
  }
  const s = mins(q.start)
  const e = mins(q.end)
  const t = at.getHours() * 60 + at.getMinutes()
  if (s === e) return false
  return s < e ? t >= s && t < e : t >= s || t < e
}
