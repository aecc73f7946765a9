import type { Submission } from './types'

/** Columns of the CSV export, in order. The signed body is left out of CSV (it is in JSON). */
export const CSV_COLUMNS = [
  'id',
  'created_at',
  'updated_at',
  'resolved_at',
  'network',
  'account',
  'signer',
  'channel',
  'action_type',
  'key',
  'summary',
  'nonce',
  'business_nonce',
  'state',
  'final_status',
  'code',
  'tx_hash',
  'trace_id',
  'attempts',
  'submit_height',
  'advice',
  'acknowledged_at',
  'ack_note',
  'proposal_id',
] as const

function iso(ms: number | null): string {
  return ms === null ? '' : new Date(ms).toISOString()
}

/** RFC 4180 quoting; a leading =, +, - or @ is prefixed with ' so spreadsheets do not run it as a formula. */
export function csvCell(value: string | number | null): string {
  let s = value === null ? '' : String(value)
  if (/^[=+\-@\t\r]/.test(s)) s = `'${s}`
  return /[",\r\n']/.test(s) ? `"${s.replace(/"/g, '""')}"` : s
}

export function submissionsToCsv(rows: readonly Submission[]): string {
  const lines = [CSV_COLUMNS.join(',')]
  for (const r of rows) {
    lines.push(
      [
        r.id,
        iso(r.createdAt),
        iso(r.updatedAt),
        iso(r.resolvedAt),
        r.network,
        r.account,
        r.signer,
        r.channel,
        r.actionType,
        r.key,
        r.summary,
        r.nonce,
        r.businessNonce,
        r.state,
        r.finalStatus,
        r.code,
        r.txHash,
        r.traceId,
        r.attempts,
        r.submitHeight,
        r.advice,
        iso(r.acknowledgedAt),
        r.ackNote,
        r.proposalId,
      ]
        .map(csvCell)
        .join(','),
    )
  }
  return lines.join('\r\n') + '\r\n'
}

/** JSON export: every field, the signed body parsed back to an object when it is JSON. */
export function submissionsToJson(rows: readonly Submission[]): string {
  return JSON.stringify(
    rows.map((r) => ({ ...r, body: parseOr(r.body), response: r.response === null ? null : parseOr(r.response) })),
    null,
    2,
  )
}

function parseOr(text: string): unknown {
  try {
    return JSON.parse(text) as unknown
  } catch {
    return text
  }
}
