import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { journalPath, openDatabase } from '../db'
import { Journal, type JournalOptions } from '../journal'

/** A journal in a fresh temporary directory, removed on close (tests, benches). */
export function openTempJournal(opts: JournalOptions = {}): Journal {
  const dir = mkdtempSync(join(tmpdir(), 'desk-journal-'))
  const file = journalPath(dir)
  return new Journal(openDatabase(file), file, { ...opts, onClose: () => rmSync(dir, { recursive: true, force: true }) })
}
