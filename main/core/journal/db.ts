import type Database from 'better-sqlite3'
import { mkdirSync } from 'node:fs'
import { createRequire } from 'node:module'
import { join } from 'node:path'
import { DeskError } from '../errors/desk-error'
import { migrate } from './migrations'

// Loaded on the first open, not when this module is evaluated: the desk's bundle evaluates its
// modules lazily, and a command that never opens the journal never loads the native addon's package.
let sqlite: typeof Database | undefined
const loadSqlite = (): typeof Database => (sqlite ??= createRequire(import.meta.url)('better-sqlite3') as typeof Database)

/** File name of the journal inside the app's data directory. */
export const JOURNAL_FILE = 'journal.sqlite'

/**
 * Opens (creating if needed) the journal database with the durability settings the journal
 * relies on: WAL so readers never block the writer, `synchronous=FULL` so a committed
 * submission survives a power cut, foreign keys on, and a busy timeout because the desktop
 * app and `desk` may share the file.
 */
export function openDatabase(file: string): Database.Database {
  let db: Database.Database
  try {
    db = new (loadSqlite())(file)
  } catch (e) {
    throw new DeskError('JournalOpenFailed', `cannot open the journal at ${file}: ${e instanceof Error ? e.message : String(e)}`, { file })
  }
  try {
    if (file !== ':memory:') {
      const mode = db.pragma('journal_mode = WAL', { simple: true })
      if (mode !== 'wal') throw new DeskError('JournalOpenFailed', `the journal could not switch to WAL (got ${String(mode)})`, { file })
    }
    db.pragma('synchronous = FULL')
    db.pragma('foreign_keys = ON')
    db.pragma('busy_timeout = 5000')
    migrate(db)
    return db
  } catch (e) {
    db.close()
    throw e
  }
}

export function journalPath(dataDir: string): string {
  mkdirSync(dataDir, { recursive: true, mode: 0o700 })
  return join(dataDir, JOURNAL_FILE)
}
