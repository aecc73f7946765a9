/**
 * The audit export: one CSV line per log entry with its hash (the digest its authors signed),
 * the link to the entry before, kind, signers, time and the canonical payload. RFC 4180 quoting.
 */
import type { LogEntryRow } from './store'
import type { ChainReport } from './chain'

const cell = (v: string) => (/[",\r\n]/.test(v) ? `"${v.replace(/"/g, '""')}"` : v)

export const CSV_HEADER = ['seq', 'hash', 'prev', 'kind', 'signers', 'created_at', 'verified', 'payload'] as const

export function logToCsv(rows: readonly LogEntryRow[], report: ChainReport): string {
  const lines = [CSV_HEADER.join(',')]
  for (const r of rows) {
    let signers: string
    try {
      signers = (JSON.parse(r.signatures) as { signer: string }[]).map((s) => s.signer).join(' ')
    } catch {
      signers = '(unreadable)'
    }
    const verified =
      r.seq < BigInt(report.verified)
        ? 'yes'
        : report.broken && r.seq === report.broken.seq
          ? `NO: ${report.broken.reason}`
          : 'no (after a broken link)'
    lines.push([r.seq.toString(), r.digest, r.prev, r.kind, signers, r.createdAt.toISOString(), verified, r.payload].map(cell).join(','))
  }
  return lines.join('\r\n') + '\r\n'
}
