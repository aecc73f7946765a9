/** The journal's channels (its cli-only `journal.reconcile` is in cli.channels.ts). */

import * as v from 'valibot'
import type { JournalRecordDetail, JournalRecordView, SubmissionView } from './journal.types'
import { JOURNAL_RECORD_STATES } from './journal.types'
import { intent, query } from './common.channel'
import { address, cloid, none, text, timeMs } from './common.schemas'

const journalFilter = v.object({
  account: v.optional(address),
  actionType: v.optional(v.pipe(v.string(), v.maxLength(40))),
  state: v.optional(v.picklist(['prepared', 'sent', 'accepted', 'rejected', 'unknown', 'reconciled', 'failed', 'unresolved'] as const)),
  unresolvedOnly: v.optional(v.boolean()),
  sinceMs: v.optional(timeMs),
  untilMs: v.optional(timeMs),
  limit: v.optional(v.pipe(v.number(), v.integer(), v.minValue(1), v.maxValue(10_000))),
  /** Free text searched in main over every entry (cloid, tx hash, trace id, oid, summary). */
  q: v.optional(v.pipe(v.string(), v.trim(), v.maxLength(120))),
})

/** The journal's records over every network (the desk's journal commands): several types and states, the journal's own state names. */
const recordFilter = v.object({
  network: v.optional(text(40)),
  account: v.optional(text()),
  actionType: v.optional(v.pipe(v.array(text(40)), v.maxLength(50))),
  state: v.optional(v.pipe(v.array(v.picklist(JOURNAL_RECORD_STATES)), v.maxLength(8))),
  since: v.optional(timeMs),
  until: v.optional(timeMs),
  limit: v.optional(v.pipe(v.number(), v.integer(), v.minValue(1), v.maxValue(999_999))),
})

export const journalChannels = {
  'journal.query': query<SubmissionView[]>()(journalFilter),
  'journal.export': query<{ filename: string; mime: string; content: string }>()(
    v.object({ format: v.picklist(['csv', 'json'] as const), filter: journalFilter }),
  ),
  'journal.get': query<SubmissionView>()(v.object({ cloid })),
  /** Action types present in the journal of the selected network (the type filter's choices). */
  'journal.actionTypes': query<string[]>()(none),
  /** Journal records of every network as the journal keeps them, newest first (without body and raw answer). */
  'journal.records': query<JournalRecordView[]>()(v.object({ filter: recordFilter })),
  /** One record with its exact signed body, raw answer and state history. */
  'journal.record': query<JournalRecordDetail>()(v.object({ id: v.pipe(v.number(), v.integer(), v.minValue(1)) })),
  /** The records a filter selects, as CSV or JSON text (no default limit). */
  'journal.records.export': query<{ format: 'csv' | 'json'; content: string }>()(
    v.object({ filter: recordFilter, format: v.picklist(['csv', 'json'] as const) }),
  ),
  /** The operator checked an unresolved write on the exchange; journaled, it frees the cloid for a new attempt. */
  'journal.acknowledge': intent<SubmissionView>()(
    v.object({
      id: v.pipe(v.string(), v.regex(/^[1-9][0-9]{0,15}$/)),
      note: v.pipe(v.string(), v.trim(), v.minLength(3), v.maxLength(500)),
    }),
  ),
} as const
