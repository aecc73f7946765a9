/**
 * CSV as RFC 4180 (CRLF line ends, fields with a comma, quote, CR or LF quoted, quotes doubled),
 * safe to open in a spreadsheet: a cell that starts with = + - @ (or a tab / CR, which some
 * spreadsheets skip before reading a formula) gets a leading ' so it is read as text, never run.
 * Columns are fixed per report and always written in the same order, header first.
 */
export type CsvValue = string | number | bigint | boolean | null | undefined

export function csvCell(value: CsvValue): string {
  let s = value === null || value === undefined ? '' : String(value)
  if (/^[=+\-@\t\r]/.test(s)) s = `'${s}`
  return /[",\r\n]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s
}

export function toCsv<C extends string>(columns: readonly C[], rows: readonly Record<C, CsvValue>[]): string {
  const lines = [columns.map(csvCell).join(',')]
  for (const r of rows) lines.push(columns.map((c) => csvCell(r[c])).join(','))
  return lines.join('\r\n') + '\r\n'
}

export function isoUtc(ms: number): string {
  return new Date(ms).toISOString()
}

/** `fills-2026-01-01T00-00-00Z-2026-02-01T00-00-00Z.csv`: the range in the name, no characters a file system refuses. */
export function exportName(prefix: string, fromMs: number, toMs: number): string {
  const t = (ms: number) =>
    isoUtc(ms)
      .replace(/\.\d{3}Z$/, 'Z')
      .replace(/:/g, '-')
  return `${prefix}-${t(fromMs)}-${t(toMs)}.csv`
}
