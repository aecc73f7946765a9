/** A chain log row as the store reads it: the stored entry and when the database took it. */
import type { StoredRow } from './chain'

export interface LogEntryRow extends StoredRow {
  createdAt: Date
}
