import { ACCOUNTS_SCHEMA } from './auth/account-store.js';

/**
 * The master store's schema for PostgreSQL: the same tables, columns and indexes as the SQLite
 * steps in migrations.ts, step for step (step N here is step N there), in PostgreSQL's dialect.
 * The version is kept in brine_schema, as SQLite keeps it in `PRAGMA user_version`.
 */
export const PG_MIGRATIONS: string[] = [
  `
  CREATE TABLE keys (
    minion      TEXT NOT NULL,
    pub         TEXT NOT NULL,
    fingerprint TEXT NOT NULL,
    state       TEXT NOT NULL CHECK (state IN ('pending', 'accepted', 'rejected', 'denied')),
    created_at  TEXT NOT NULL,
    updated_at  TEXT NOT NULL,
    PRIMARY KEY (minion, fingerprint)
  );
  CREATE INDEX keys_state ON keys (state, minion);
  CREATE TABLE minions (
    minion     TEXT PRIMARY KEY,
    grains     TEXT NOT NULL DEFAULT '{}',
    last_seen  TEXT,
    first_seen TEXT NOT NULL
  );
  CREATE TABLE jobs (
    jid        TEXT PRIMARY KEY,
    fun        TEXT NOT NULL,
    args       TEXT NOT NULL,
    target     TEXT NOT NULL,
    tgt_type   TEXT NOT NULL,
    "user"     TEXT NOT NULL,
    batch      TEXT,
    created_at TEXT NOT NULL,
    expected   TEXT NOT NULL
  );
  CREATE INDEX jobs_created ON jobs (created_at);
  CREATE INDEX jobs_fun ON jobs (fun, created_at);
  CREATE TABLE job_minions (
    jid    TEXT NOT NULL REFERENCES jobs (jid) ON DELETE CASCADE,
    minion TEXT NOT NULL,
    PRIMARY KEY (jid, minion)
  );
  CREATE INDEX job_minions_minion ON job_minions (minion, jid);
  CREATE TABLE returns (
    jid       TEXT NOT NULL REFERENCES jobs (jid) ON DELETE CASCADE,
    minion    TEXT NOT NULL,
    fun       TEXT NOT NULL,
    success   INTEGER NOT NULL,
    retcode   INTEGER NOT NULL,
    ret       TEXT NOT NULL,
    started   TEXT NOT NULL,
    finished  TEXT NOT NULL,
    stored_at TEXT NOT NULL,
    summary   TEXT,
    PRIMARY KEY (jid, minion)
  );
  CREATE INDEX returns_minion ON returns (minion, finished);
  CREATE INDEX returns_failed ON returns (success, finished);
  CREATE TABLE events (
    seq        BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    tag        TEXT NOT NULL,
    data       TEXT NOT NULL,
    created_at TEXT NOT NULL
  );
  CREATE INDEX events_created ON events (created_at);
  `,
  `
  CREATE TABLE state_results (
    jid        TEXT NOT NULL REFERENCES jobs (jid) ON DELETE CASCADE,
    minion     TEXT NOT NULL,
    run_num    INTEGER NOT NULL,
    tag        TEXT NOT NULL,
    id         TEXT NOT NULL,
    name       TEXT NOT NULL,
    state      TEXT NOT NULL,
    fun        TEXT NOT NULL,
    sls        TEXT,
    result     INTEGER,
    changed    INTEGER NOT NULL,
    changes    TEXT NOT NULL,
    comment    TEXT NOT NULL,
    start_time TEXT,
    duration   DOUBLE PRECISION,
    stored_at  TEXT NOT NULL,
    PRIMARY KEY (jid, minion, run_num)
  );
  CREATE INDEX state_results_minion ON state_results (minion, jid);
  CREATE INDEX state_results_failed ON state_results (jid) WHERE result = 0;
  CREATE INDEX state_results_id ON state_results (id, changed, jid);
  CREATE INDEX state_results_name ON state_results (name, changed, jid);
  ALTER TABLE jobs ADD COLUMN highstate INTEGER NOT NULL DEFAULT 0;
  CREATE INDEX jobs_highstate ON jobs (highstate, jid);
  `,
  `
  ALTER TABLE jobs ADD COLUMN tree_hash TEXT;
  ALTER TABLE events ADD COLUMN origin TEXT;
  CREATE TABLE presence (
    minion TEXT PRIMARY KEY,
    master TEXT NOT NULL,
    since  TEXT NOT NULL
  );
  CREATE TABLE masters (
    id      TEXT PRIMARY KEY,
    api_url TEXT NOT NULL,
    seen_at TEXT NOT NULL
  );
  `,
  // 4: one live key per minion id (any state but denied), so two masters of a cluster that take
  // the first hellos of one id at the same moment cannot both land a first key. Rows that broke
  // it before are settled as a single master would have: an accepted key stays, else the oldest.
  `
  UPDATE keys SET state = 'denied'
  WHERE state <> 'denied' AND EXISTS (
    SELECT 1 FROM keys k
    WHERE k.minion = keys.minion AND k.state <> 'denied' AND k.fingerprint <> keys.fingerprint
      AND (CASE WHEN k.state = 'accepted' THEN 1 ELSE 0 END > CASE WHEN keys.state = 'accepted' THEN 1 ELSE 0 END
        OR (CASE WHEN k.state = 'accepted' THEN 1 ELSE 0 END = CASE WHEN keys.state = 'accepted' THEN 1 ELSE 0 END
          AND (k.created_at < keys.created_at OR (k.created_at = keys.created_at AND k.fingerprint < keys.fingerprint))))
  );
  CREATE UNIQUE INDEX keys_one_live ON keys (minion) WHERE state <> 'denied';
  `,
  // 5: mine: the values minions push (mine_functions, mine.send), one row per minion and function
  `
  CREATE TABLE mine (
    minion    TEXT NOT NULL,
    fun       TEXT NOT NULL,
    value     TEXT NOT NULL,
    pushed_at TEXT NOT NULL,
    PRIMARY KEY (minion, fun)
  );
  CREATE INDEX mine_fun ON mine (fun, minion);
  `,
  // 6: orchestration: the job an orchestration step published points at the orchestration's job
  `
  ALTER TABLE jobs ADD COLUMN parent_jid TEXT;
  CREATE INDEX jobs_parent ON jobs (parent_jid, jid);
  `,
  // 7: the reactor: each event reacted to is claimed once across a cluster (`reactions`), and
  // each job a reaction published is kept with its event and chain depth (`reactor_jobs`)
  `
  CREATE TABLE reactions (
    event_key  TEXT PRIMARY KEY,
    tag        TEXT NOT NULL,
    master     TEXT,
    depth      INTEGER NOT NULL,
    created_at TEXT NOT NULL
  );
  CREATE TABLE reactor_jobs (
    jid        TEXT PRIMARY KEY,
    tag        TEXT NOT NULL,
    depth      INTEGER NOT NULL,
    created_at TEXT NOT NULL
  );
  CREATE INDEX reactor_jobs_created ON reactor_jobs (created_at);
  CREATE INDEX reactions_created ON reactions (created_at);
  `,
  // 8: operators, their API tokens (hashed) and the audit trail (issue 27)
  ACCOUNTS_SCHEMA('BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY'),
  // 9: returns keep only their key (jid, minion): every read of returns is by job, or by job and
  // minion. The indexes by minion and by success were never read, and each took a write per
  // return at a random place of the file: 10,000 returns committed 300 at a time took 2.5x as
  // long with them (SQLite alone); a ping of 10,000 minions, the master's commits 30% longer
  `
  DROP INDEX IF EXISTS returns_minion;
  DROP INDEX IF EXISTS returns_failed;
  `,
];
