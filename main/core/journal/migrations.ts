import type Database from 'better-sqlite3'
import { DeskError } from '../errors/desk-error'

/**
 * Schema migrations, in code, applied in order inside one transaction each. `user_version`
 * records the last applied step. Never edit a shipped step: append a new one.
 */
export const MIGRATIONS: readonly string[] = [
  // 1: submissions, their history, nonces, state cache, credit history.
  `
  CREATE TABLE submissions (
    id             INTEGER PRIMARY KEY AUTOINCREMENT,
    channel        TEXT NOT NULL CHECK (channel IN ('trade', 'earn')),
    key            TEXT NOT NULL,
    network        TEXT NOT NULL,
    account        TEXT NOT NULL,
    signer         TEXT NOT NULL,
    action_type    TEXT NOT NULL,
    summary        TEXT NOT NULL,
    nonce          TEXT,
    business_nonce TEXT,
    body           TEXT NOT NULL,
    state          TEXT NOT NULL CHECK (state IN ('signed', 'sent', 'accepted', 'rejected', 'unknown', 'reconciled')),
    final_status   TEXT,
    code           TEXT,
    tx_hash        TEXT,
    trace_id       TEXT,
    response       TEXT,
    attempts       INTEGER NOT NULL DEFAULT 0,
    created_at     INTEGER NOT NULL,
    updated_at     INTEGER NOT NULL,
    resolved_at    INTEGER
  );
  -- A nonce is used once per signer and network, whatever happens to the submission.
  CREATE UNIQUE INDEX submissions_nonce ON submissions (network, signer, nonce) WHERE nonce IS NOT NULL;
  CREATE INDEX submissions_key ON submissions (network, key);
  CREATE INDEX submissions_account ON submissions (network, account, created_at);
  CREATE INDEX submissions_state ON submissions (state);
  CREATE INDEX submissions_created ON submissions (created_at);

  CREATE TABLE submission_events (
    id            INTEGER PRIMARY KEY AUTOINCREMENT,
    submission_id INTEGER NOT NULL REFERENCES submissions (id),
    at            INTEGER NOT NULL,
    state         TEXT NOT NULL,
    final_status  TEXT,
    code          TEXT,
    note          TEXT
  );
  CREATE INDEX submission_events_sub ON submission_events (submission_id, id);

  CREATE TABLE nonces (
    network TEXT NOT NULL,
    signer  TEXT NOT NULL,
    kind    TEXT NOT NULL CHECK (kind IN ('envelope', 'withdraw')),
    last    TEXT NOT NULL,
    PRIMARY KEY (network, signer, kind)
  ) WITHOUT ROWID;

  CREATE TABLE account_state (
    network    TEXT NOT NULL,
    account    TEXT NOT NULL,
    kind       TEXT NOT NULL,
    json       TEXT NOT NULL,
    fetched_at INTEGER NOT NULL,
    PRIMARY KEY (network, account, kind)
  ) WITHOUT ROWID;

  CREATE TABLE credit_samples (
    id                    INTEGER PRIMARY KEY AUTOINCREMENT,
    network               TEXT NOT NULL,
    account               TEXT NOT NULL,
    at                    INTEGER NOT NULL,
    status                TEXT,
    credit_usd_atoms      TEXT,
    available_usd_atoms   TEXT,
    last_known_usd_atoms  TEXT,
    level                 TEXT,
    detail                TEXT
  );
  CREATE INDEX credit_samples_account ON credit_samples (network, account, at);
  `,
  // 2: outcomes never misreported (issue 11). Two more states: `failed` (reached execution and
  // failed with a code) and `unresolved` (evidence could not settle it; re-sending needs a
  // journaled operator acknowledgement). SQLite cannot alter a CHECK, so the table is rebuilt
  // (rows and ids kept); the history table is rebuilt with it so its foreign key follows.
  // New columns: the block height known before sending (proves the lookback window), the
  // evidence and advice of an unresolved outcome, and the acknowledgement.
  `
  CREATE TABLE submission_events_v1 AS SELECT * FROM submission_events;
  DROP TABLE submission_events;
  CREATE TABLE submissions_v2 (
    id             INTEGER PRIMARY KEY AUTOINCREMENT,
    channel        TEXT NOT NULL CHECK (channel IN ('trade', 'earn')),
    key            TEXT NOT NULL,
    network        TEXT NOT NULL,
    account        TEXT NOT NULL,
    signer         TEXT NOT NULL,
    action_type    TEXT NOT NULL,
    summary        TEXT NOT NULL,
    nonce          TEXT,
    business_nonce TEXT,
    body           TEXT NOT NULL,
    state          TEXT NOT NULL CHECK (state IN ('signed', 'sent', 'accepted', 'rejected', 'failed', 'unknown', 'unresolved', 'reconciled')),
    final_status   TEXT,
    code           TEXT,
    tx_hash        TEXT,
    trace_id       TEXT,
    response       TEXT,
    attempts       INTEGER NOT NULL DEFAULT 0,
    created_at     INTEGER NOT NULL,
    updated_at     INTEGER NOT NULL,
    resolved_at    INTEGER,
    submit_height  TEXT,
    evidence       TEXT,
    advice         TEXT,
    acknowledged_at INTEGER,
    ack_note       TEXT
  );
  INSERT INTO submissions_v2 (id, channel, key, network, account, signer, action_type, summary, nonce, business_nonce, body, state,
    final_status, code, tx_hash, trace_id, response, attempts, created_at, updated_at, resolved_at)
    SELECT id, channel, key, network, account, signer, action_type, summary, nonce, business_nonce, body, state,
    final_status, code, tx_hash, trace_id, response, attempts, created_at, updated_at, resolved_at FROM submissions;
  DROP TABLE submissions;
  ALTER TABLE submissions_v2 RENAME TO submissions;
  CREATE UNIQUE INDEX submissions_nonce ON submissions (network, signer, nonce) WHERE nonce IS NOT NULL;
  CREATE INDEX submissions_key ON submissions (network, key);
  CREATE INDEX submissions_account ON submissions (network, account, created_at);
  CREATE INDEX submissions_state ON submissions (state);
  CREATE INDEX submissions_created ON submissions (created_at);
  CREATE TABLE submission_events (
    id            INTEGER PRIMARY KEY AUTOINCREMENT,
    submission_id INTEGER NOT NULL REFERENCES submissions (id),
    at            INTEGER NOT NULL,
    state         TEXT NOT NULL,
    final_status  TEXT,
    code          TEXT,
    note          TEXT
  );
  INSERT INTO submission_events (id, submission_id, at, state, final_status, code, note)
    SELECT id, submission_id, at, state, final_status, code, note FROM submission_events_v1;
  DROP TABLE submission_events_v1;
  CREATE INDEX submission_events_sub ON submission_events (submission_id, id);
  `,
  // 3: operator-policy events (rule changes, address-book edits, overrides, halt/resume).
  `
  CREATE TABLE policy_events (
    id      INTEGER PRIMARY KEY AUTOINCREMENT,
    network TEXT NOT NULL,
    at      INTEGER NOT NULL,
    kind    TEXT NOT NULL,
    summary TEXT NOT NULL,
    detail  TEXT NOT NULL
  );
  CREATE INDEX policy_events_network ON policy_events (network, at);
  `,
  // 4: operator alerts (features/alerts): a bounded log the CLI can list, the alert settings, and
  // the small state alert rules keep across restarts (fired keys, LTV crossings, agents seen).
  `
  CREATE TABLE alerts (
    id                 INTEGER PRIMARY KEY AUTOINCREMENT,
    network            TEXT NOT NULL,
    kind               TEXT NOT NULL,
    level              TEXT NOT NULL,
    title              TEXT NOT NULL,
    message            TEXT NOT NULL,
    account            TEXT,
    at                 INTEGER NOT NULL,
    desktop_suppressed INTEGER NOT NULL DEFAULT 0,
    acknowledged_at    INTEGER
  );
  CREATE INDEX alerts_at ON alerts (at);
  CREATE TABLE alert_state (
    network TEXT NOT NULL,
    key     TEXT NOT NULL,
    value   TEXT NOT NULL,
    at      INTEGER NOT NULL,
    PRIMARY KEY (network, key)
  ) WITHOUT ROWID;
  CREATE TABLE alert_settings (
    id         INTEGER PRIMARY KEY CHECK (id = 1),
    json       TEXT NOT NULL,
    updated_at INTEGER NOT NULL
  );
  `,
  // 5: the order ids a write's answer named (space-separated), so the journal can be searched by
  // oid: a submission stores its cloid and tx hash, but the oid only arrives in the response.
  // Existing rows are filled from their stored response.
  `
  ALTER TABLE submissions ADD COLUMN oids TEXT;
  UPDATE submissions SET oids = (
    SELECT group_concat(CAST(t.value AS TEXT), ' ') FROM json_tree(submissions.response) AS t WHERE t.key = 'oid' AND t.value IS NOT NULL
  ) WHERE response IS NOT NULL AND json_valid(response);
  `,
  // 6: the team proposal a write executed (team mode), so the journal says where each write came from.
  `
  ALTER TABLE submissions ADD COLUMN proposal_id TEXT;
  `,
]

export function migrate(db: Database.Database): { from: number; to: number } {
  const tooNew = (schema: number) =>
    new DeskError('JournalTooNew', `the journal was written by a newer version (schema ${schema}, this build knows ${MIGRATIONS.length})`, {
      schema,
      known: MIGRATIONS.length,
    })
  const from = db.pragma('user_version', { simple: true }) as number
  if (from > MIGRATIONS.length) throw tooNew(from)
  // Each step re-reads the version under the write lock: two processes opening a new journal at
  // once (the app and a desk, a restart racing a crash child) must not both run the same step.
  for (;;) {
    const done = db
      .transaction(() => {
        const v = db.pragma('user_version', { simple: true }) as number
        if (v > MIGRATIONS.length) throw tooNew(v)
        if (v === MIGRATIONS.length) return true
        db.exec(MIGRATIONS[v]!)
        db.pragma(`user_version = ${v + 1}`)
        return false
      })
      .immediate()
    if (done) break
  }
  return { from, to: MIGRATIONS.length }
}
