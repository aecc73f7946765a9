import type Database from 'better-sqlite3'
import { DeskError } from '../errors/desk-error'
import { AlertLog } from './alert-log'
import { CreditHistory } from './credit-history'
import { journalPath, openDatabase } from './db'
import { submissionsToCsv, submissionsToJson } from './export'
import { PolicyEvents } from './policy-events'
import { StateCache } from './state-cache'
import { reuseBlocker } from './outcome'
import { SubmissionStore } from './submissions'
import type {
  AccountStateKind,
  CachedState,
  CreditSample,
  NewSubmission,
  NonceKind,
  PolicyEvent,
  Submission,
  SubmissionEvent,
  SubmissionFilter,
  SubmissionUpdate,
} from './types'

export interface JournalOptions {
  /** Clock for timestamps (Unix ms); tests inject a fake one. */
  now?: () => number
}

/**
 * The submission journal: every write is recorded (with its exact signed body and nonce)
 * before it is sent, then each state change; plus the persisted nonce sequences, the last
 * known account state and the credit-health history. One SQLite file in the data directory.
 *
 * All methods are synchronous (better-sqlite3): when a call returns, the data is on disk.
 * `close()` waits for in-flight submissions that hold the journal (see `hold`) before closing.
 */
export class Journal {
  readonly file: string
  private readonly submissions: SubmissionStore
  private readonly stateCache: StateCache
  private readonly credit: CreditHistory
  private readonly policy: PolicyEvents
  /** Operator alerts (features/alerts): bounded log, settings, rule state. */
  readonly alerts: AlertLog
  private closed = false
  private holds = 0
  private idleWaiters: (() => void)[] = []
  private readonly onClose: (() => void) | undefined
  private readonly listeners = new Set<(s: Submission) => void>()

  constructor(
    private readonly db: Database.Database,
    file: string,
    opts: JournalOptions & { onClose?: () => void } = {},
  ) {
    const now = opts.now ?? Date.now
    this.file = file
    this.submissions = new SubmissionStore(db, now)
    this.stateCache = new StateCache(db, now)
    this.credit = new CreditHistory(db)
    this.policy = new PolicyEvents(db, now)
    this.alerts = new AlertLog(db, now)
    this.onClose = opts.onClose
  }

  private open(): void {
    if (this.closed) throw new DeskError('JournalClosed', 'the journal is closed')
  }

  get isClosed(): boolean {
    return this.closed
  }

  // --- submissions -------------------------------------------------------------------------

  /** Records a signed submission (state `signed`) and claims its nonce(s) atomically. */
  record(input: NewSubmission): Submission {
    this.open()
    return this.emit(this.submissions.record(input))
  }

  update(id: number, u: SubmissionUpdate): Submission {
    this.open()
    return this.emit(this.submissions.update(id, u))
  }

  /** Records the team proposal this write executes. */
  linkProposal(id: number, proposalId: string): Submission {
    this.open()
    return this.emit(this.submissions.linkProposal(id, proposalId))
  }

  /** Called after every committed record or state change in this process (e.g. to push `journal.changed`). */
  onChange(listener: (s: Submission) => void): () => void {
    this.listeners.add(listener)
    return () => this.listeners.delete(listener)
  }

  private emit(s: Submission): Submission {
    for (const l of this.listeners) {
      try {
        l(s)
      } catch {
        // A listener's failure must never undo or block a committed journal write.
      }
    }
    return s
  }

  get(id: number): Submission | null {
    this.open()
    return this.submissions.get(id)
  }

  history(id: number): SubmissionEvent[] {
    this.open()
    return this.submissions.history(id)
  }

  findByKey(network: string, key: string, actionType?: string): Submission | null {
    this.open()
    return this.submissions.findByKey(network, key, actionType)
  }

  list(filter: SubmissionFilter = {}): Submission[] {
    this.open()
    return this.submissions.list(filter)
  }

  count(filter: SubmissionFilter = {}): number {
    this.open()
    return this.submissions.count(filter)
  }

  /** Distinct action types journaled on a network (the journal's type filter). */
  actionTypes(network: string): string[] {
    this.open()
    return this.submissions.actionTypes(network)
  }

  /** Entries not final yet (signed, sent, unknown), oldest first. */
  unresolved(network?: string): Submission[] {
    this.open()
    return this.submissions.unresolved(network)
  }

  /** Journals the operator's acknowledgement of an unresolved outcome (see SubmissionStore). */
  acknowledgeUnresolved(id: number, note: string): Submission {
    this.open()
    return this.emit(this.submissions.acknowledgeUnresolved(id, note))
  }

  /** Entries that are unresolved and not yet acknowledged: the operator's to-do list. */
  unacknowledged(network?: string): Submission[] {
    this.open()
    return this.submissions.list({ network, state: 'unresolved', order: 'oldest' }).filter((s) => s.acknowledgedAt === null)
  }

  /** Why this cloid / operation id may not be used on a new write (null: it may). */
  reuseBlocker(network: string, key: string): ReturnType<typeof reuseBlocker> {
    this.open()
    return reuseBlocker(this.submissions.list({ network, key, order: 'newest' }))
  }

  lastNonce(network: string, signer: string, kind: NonceKind): bigint | null {
    this.open()
    return this.submissions.lastNonce(network, signer, kind)
  }

  export(filter: SubmissionFilter, format: 'csv' | 'json'): string {
    const rows = this.list({ order: 'oldest', ...filter })
    return format === 'csv' ? submissionsToCsv(rows) : submissionsToJson(rows)
  }

  // --- last known account state --------------------------------------------------------------

  putState(network: string, account: string, kind: AccountStateKind, value: unknown, fetchedAt?: number): void {
    this.open()
    this.stateCache.put(network, account, kind, value, fetchedAt)
  }

  /** Several last-known values in one transaction (the session's write-behind flush). */
  putStates(network: string, rows: readonly { account: string; kind: AccountStateKind; value: unknown; fetchedAt: number }[]): void {
    this.open()
    this.stateCache.putMany(network, rows)
  }

  getState<T = unknown>(network: string, account: string, kind: AccountStateKind): CachedState<T> | null {
    this.open()
    return this.stateCache.get<T>(network, account, kind)
  }

  allStates(network: string): CachedState[] {
    this.open()
    return this.stateCache.all(network)
  }

  deleteState(network: string, account: string, kind?: AccountStateKind): void {
    this.open()
    this.stateCache.delete(network, account, kind)
  }

  // --- credit-health history -------------------------------------------------------------

  appendCreditSample(network: string, account: string, sample: CreditSample): void {
    this.open()
    this.credit.append(network, account, sample)
  }

  creditHistory(network: string, account: string, since: number, limit?: number): CreditSample[] {
    this.open()
    return this.credit.since(network, account, since, limit)
  }

  pruneCreditHistory(before: number): number {
    this.open()
    return this.credit.prune(before)
  }

  // --- operator-policy events ----------------------------------------------------------------

  /** Records a policy change, address-book edit, override or halt (never a passphrase). */
  recordPolicyEvent(network: string, kind: string, summary: string, detail: unknown): PolicyEvent {
    this.open()
    return this.policy.append(network, kind, summary, detail)
  }

  policyEvents(network: string, limit?: number): PolicyEvent[] {
    this.open()
    return this.policy.list(network, limit)
  }

  // --- lifecycle ---------------------------------------------------------------------------

  /**
   * Marks a submission in flight; `close()` waits until every hold is released so the
   * answer of a request already on the wire is still recorded. Returns the release function.
   */
  hold(): () => void {
    this.open()
    this.holds++
    let released = false
    return () => {
      if (released) return
      released = true
      this.holds--
      if (this.holds === 0) for (const w of this.idleWaiters.splice(0)) w()
    }
  }

  /** Waits for in-flight holds (at most `timeoutMs`), checkpoints the WAL and closes. */
  async close(timeoutMs = 15_000): Promise<void> {
    if (this.closed) return
    if (this.holds > 0) {
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, timeoutMs)
        this.idleWaiters.push(() => {
          clearTimeout(timer)
          resolve()
        })
      })
    }
    this.closeNow()
  }

  /** Closes at once (pending holds will fail with JournalClosed when they try to write). */
  closeNow(): void {
    if (this.closed) return
    this.closed = true
    try {
      if (this.file !== ':memory:') this.db.pragma('wal_checkpoint(TRUNCATE)')
    } finally {
      this.db.close()
      this.onClose?.()
    }
  }
}

/** Opens the journal in the app's data directory (created if missing). */
export function openJournal(dataDir: string, opts: JournalOptions = {}): Journal {
  const file = journalPath(dataDir)
  return new Journal(openDatabase(file), file, opts)
}

/** Opens a journal at an explicit file path (`:memory:` for a throw-away one). */
export function openJournalFile(file: string, opts: JournalOptions = {}): Journal {
  return new Journal(openDatabase(file), file, opts)
}
