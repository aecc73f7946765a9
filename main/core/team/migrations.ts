/**
 * Team store schema, numbered migrations applied in order, each once. All of them run in one
 * transaction under a transaction-scoped advisory lock, so desks starting together neither race
 * nor half-apply; a desk that finds a newer schema than it knows refuses to continue.
 */
import type pg from 'pg'
import { DeskError } from '../errors/desk-error'
import { TeamErrors } from './errors'

export interface Migration {
  version: number
  name: string
  sql: string
}

/** Arbitrary constant: the advisory lock key for team-store migrations. */
const MIGRATION_LOCK = 0x7d5e_a11 // "team all"

export const MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    name: 'team chain log',
    sql: `
      CREATE TABLE team_log (
        seq bigint PRIMARY KEY CHECK (seq >= 0),
        prev text NOT NULL,
        kind text NOT NULL,
        payload text NOT NULL,
        digest text NOT NULL,
        signatures text NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now()
      );
      -- Append-only for honest clients; a database administrator can still bypass this, which is
      -- why every desk verifies the chain by signatures and never trusts a row for being here.
      CREATE FUNCTION team_log_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN RAISE EXCEPTION 'team_log is append-only'; END $$;
      CREATE TRIGGER team_log_no_change BEFORE UPDATE OR DELETE ON team_log
        FOR EACH ROW EXECUTE FUNCTION team_log_append_only();
      CREATE TRIGGER team_log_no_truncate BEFORE TRUNCATE ON team_log
        FOR EACH STATEMENT EXECUTE FUNCTION team_log_append_only();
      -- Push: every committed entry wakes the desks listening (payload: its seq).
      CREATE FUNCTION team_log_notify() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN PERFORM pg_notify('team_log', NEW.seq::text); RETURN NULL; END $$;
      CREATE TRIGGER team_log_notify AFTER INSERT ON team_log
        FOR EACH ROW EXECUTE FUNCTION team_log_notify();
    `,
  },
  {
    version: 2,
    name: 'execution leases',
    sql: `
      -- Which desk may send a proposal's signed bytes, until when (server clock). Not part of the
      -- chain: a lease only orders desks; what was signed is in team_log and verified from it.
      CREATE TABLE team_leases (
        proposal_id text PRIMARY KEY,
        holder text,
        expires_at timestamptz
      );
    `,
  },
  {
    version: 3,
    name: 'admin changes collecting signatures',
    sql: `
      -- A roster or policy change while its admin quorum signs it, desk by desk. Not part of the
      -- chain and never trusted: each desk re-checks every signature before it adds its own, and the
      -- change enters team_log (verified by every desk) once it carries the quorum.
      CREATE TABLE team_changes (
        id text PRIMARY KEY,
        kind text NOT NULL,
        payload text NOT NULL,
        signatures text NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now()
      );
    `,
  },
  {
    version: 4,
    name: 'push of admin changes',
    sql: `
      -- Push: a change made, signed or dropped wakes the desks listening (payload: its id), as
      -- team_log's entries do; the desks re-read and re-verify the waiting changes.
      CREATE FUNCTION team_changes_notify() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF TG_OP = 'DELETE' THEN PERFORM pg_notify('team_changes', OLD.id);
        ELSE PERFORM pg_notify('team_changes', NEW.id);
        END IF;
        RETURN NULL;
      END $$;
      CREATE TRIGGER team_changes_notify AFTER INSERT OR UPDATE OR DELETE ON team_changes
        FOR EACH ROW EXECUTE FUNCTION team_changes_notify();
    `,
  },
  {
    version: 5,
    name: 'custody: identity keys, sealed shares, signing requests and releases',
    sql: `
      -- Custody (issue 32). Nothing here is trusted or readable alone: an identity key row is
      -- self-certifying (its address is the key's hash), a share or a release is sealed to one
      -- member's identity key (ECIES) and a release is signed by its holder; the split in force is
      -- the team chain's custody entry, whose digest covers the stored shares.
      CREATE TABLE team_identity_keys (
        address text PRIMARY KEY,
        public_key text NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now()
      );
      CREATE TABLE team_custody_shares (
        account text NOT NULL,
        version integer NOT NULL,
        holder text NOT NULL,
        share_index integer NOT NULL,
        envelope text NOT NULL,
        PRIMARY KEY (account, version, holder)
      );
      CREATE TABLE team_custody_requests (
        id text PRIMARY KEY,
        proposal_id text NOT NULL,
        account text NOT NULL,
        version integer NOT NULL,
        requester text NOT NULL,
        typed_data text NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now()
      );
      CREATE TABLE team_custody_releases (
        request_id text NOT NULL REFERENCES team_custody_requests (id),
        holder text NOT NULL,
        share_index integer NOT NULL,
        envelope text NOT NULL,
        expires_at bigint NOT NULL,
        signature text NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (request_id, holder)
      );
      CREATE FUNCTION team_custody_notify() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF TG_TABLE_NAME = 'team_custody_requests' THEN PERFORM pg_notify('team_custody', 'request:' || NEW.id);
        ELSE PERFORM pg_notify('team_custody', 'release:' || NEW.request_id);
        END IF;
        RETURN NULL;
      END $$;
      CREATE TRIGGER team_custody_requests_notify AFTER INSERT ON team_custody_requests
        FOR EACH ROW EXECUTE FUNCTION team_custody_notify();
      CREATE TRIGGER team_custody_releases_notify AFTER INSERT ON team_custody_releases
        FOR EACH ROW EXECUTE FUNCTION team_custody_notify();
    `,
  },
]

export const NOTIFY_CHANNEL = 'team_log'
/** Admin changes collecting signatures (team_changes): made, signed, applied or dropped. */
export const CHANGES_CHANNEL = 'team_changes'
/** Custody signing requests and share releases: `request:<id>` or `release:<request id>`. */
export const CUSTODY_CHANNEL = 'team_custody'

/** Applies what is missing; returns the versions applied by this call. */
export async function migrate(client: pg.ClientBase, migrations: readonly Migration[] = MIGRATIONS): Promise<number[]> {
  const applied: number[] = []
  await client.query('BEGIN')
  try {
    await client.query('SELECT pg_advisory_xact_lock($1)', [MIGRATION_LOCK])
    await client.query(`CREATE TABLE IF NOT EXISTS team_migrations (
      version integer PRIMARY KEY, name text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now())`)
    const { rows } = await client.query<{ version: number }>('SELECT version FROM team_migrations')
    const have = new Set(rows.map((r) => r.version))
    const known = Math.max(0, ...migrations.map((m) => m.version))
    const newest = Math.max(0, ...have)
    if (newest > known)
      throw new DeskError(
        TeamErrors.storeFailed,
        `the team store schema is version ${newest}; this desk knows up to ${known}: update the desk`,
      )
    for (const m of [...migrations].sort((a, b) => a.version - b.version)) {
      if (have.has(m.version)) continue
      await client.query(m.sql)
      await client.query('INSERT INTO team_migrations (version, name) VALUES ($1, $2)', [m.version, m.name])
      applied.push(m.version)
    }
    await client.query('COMMIT')
    return applied
  } catch (e) {
    await client.query('ROLLBACK').catch(() => {})
    throw e
  }
}
