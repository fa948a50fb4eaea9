/** What the account store needs of a backend: one statement now, and rows of a query (`?` placeholders on both). */
export interface SqlRunner {
  run(sql: string, params: unknown[]): Promise<number>;
  all(sql: string, params: unknown[]): Promise<Array<Record<string, unknown>>>;
}

export interface UserRow {
  name: string;
  password: string;
  created_at: string;
  updated_at: string;
}

export interface TokenRow {
  id: string;
  username: string;
  eauth: string;
  groups: string[];
  created_at: string;
  expires_at: string;
  revoked_at: string | null;
}

export interface AuditRow {
  seq: number;
  at: string;
  username: string;
  source: string;
  action: string;
  target: string | null;
  args: unknown;
  outcome: string;
}

export interface AuditQuery {
  user?: string;
  action?: string;
  since?: string;
  limit?: number;
}

const tokenOf = (r: Record<string, unknown>): TokenRow & { hash: string } => ({
  id: r.id as string,
  hash: r.hash as string,
  username: r.username as string,
  eauth: r.eauth as string,
  groups: JSON.parse(r.groups as string) as string[],
  created_at: r.created_at as string,
  expires_at: r.expires_at as string,
  revoked_at: (r.revoked_at as string | null) ?? null,
});

/**
 * Operators, their API tokens (only a hash is stored) and the audit trail, in the master's store:
 * the same statements on SQLite and PostgreSQL (schema step 8 on both).
 */
export class AccountStore {
  private readonly sql: SqlRunner;
  constructor(sql: SqlRunner) {
    this.sql = sql;
  }

  async putUser(name: string, password: string): Promise<void> {
    const now = new Date().toISOString();
    await this.sql.run(
      'INSERT INTO users (name, password, created_at, updated_at) VALUES (?, ?, ?, ?) ON CONFLICT (name) DO UPDATE SET password = excluded.password, updated_at = excluded.updated_at',
      [name, password, now, now],
    );
  }
  async getUser(name: string): Promise<UserRow | undefined> {
    return (await this.sql.all('SELECT name, password, created_at, updated_at FROM users WHERE name = ?', [name]))[0] as unknown as UserRow | undefined;
  }
  /** Removes the user and revokes their tokens at once. */
  async removeUser(name: string): Promise<boolean> {
    await this.sql.run('UPDATE api_tokens SET revoked_at = ? WHERE username = ? AND eauth = ? AND revoked_at IS NULL', [
      new Date().toISOString(),
      name,
      'local',
    ]);
    return (await this.sql.run('DELETE FROM users WHERE name = ?', [name])) > 0;
  }
  async listUsers(): Promise<Array<Omit<UserRow, 'password'>>> {
    return (await this.sql.all('SELECT name, created_at, updated_at FROM users ORDER BY name', [])) as Array<Omit<UserRow, 'password'>>;
  }

  async insertToken(t: TokenRow & { hash: string }): Promise<void> {
    await this.sql.run('INSERT INTO api_tokens (id, hash, username, eauth, groups, created_at, expires_at) VALUES (?, ?, ?, ?, ?, ?, ?)', [
      t.id,
      t.hash,
      t.username,
      t.eauth,
      JSON.stringify(t.groups),
      t.created_at,
      t.expires_at,
    ]);
  }
  async tokenByHash(hash: string): Promise<TokenRow | undefined> {
    const r = (await this.sql.all('SELECT * FROM api_tokens WHERE hash = ?', [hash]))[0];
    if (!r) return undefined;
    const { hash: _h, ...row } = tokenOf(r);
    return row;
  }
  async listTokens(user?: string): Promise<TokenRow[]> {
    const rows = user
      ? await this.sql.all('SELECT * FROM api_tokens WHERE username = ? ORDER BY created_at', [user])
      : await this.sql.all('SELECT * FROM api_tokens ORDER BY created_at', []);
    return rows.map((r) => {
      const { hash: _h, ...row } = tokenOf(r);
      return row;
    });
  }
  async getToken(id: string): Promise<TokenRow | undefined> {
    return (await this.listTokensWhere('id = ?', [id]))[0];
  }
  private async listTokensWhere(where: string, params: unknown[]): Promise<TokenRow[]> {
    return (await this.sql.all(`SELECT * FROM api_tokens WHERE ${where}`, params)).map((r) => {
      const { hash: _h, ...row } = tokenOf(r);
      return row;
    });
  }
  async revokeToken(id: string): Promise<boolean> {
    return (await this.sql.run('UPDATE api_tokens SET revoked_at = ? WHERE id = ? AND revoked_at IS NULL', [new Date().toISOString(), id])) > 0;
  }

  async audit(e: Omit<AuditRow, 'seq'>): Promise<void> {
    await this.sql.run('INSERT INTO audit (at, username, source, action, target, args, outcome) VALUES (?, ?, ?, ?, ?, ?, ?)', [
      e.at,
      e.username,
      e.source,
      e.action,
      e.target,
      JSON.stringify(e.args ?? null),
      e.outcome,
    ]);
  }
  async queryAudit(q: AuditQuery): Promise<AuditRow[]> {
    const where: string[] = [];
    const params: unknown[] = [];
    const add = (sql: string, ...values: unknown[]) => {
      where.push(sql);
      params.push(...values);
    };
    if (q.user) add('username = ?', q.user);
    if (q.since) add('at >= ?', q.since);
    // an action filter names a kind ('job') or one action ('job.publish')
    if (q.action) add('(action = ? OR action LIKE ?)', q.action, `${q.action}.%`);
    params.push(Math.min(q.limit ?? 200, 5000));
    const rows = await this.sql.all(`SELECT * FROM audit${where.length ? ` WHERE ${where.join(' AND ')}` : ''} ORDER BY seq DESC LIMIT ?`, params);
    return rows.map((r) => ({
      seq: Number(r.seq),
      at: r.at as string,
      username: r.username as string,
      source: r.source as string,
      action: r.action as string,
      target: (r.target as string | null) ?? null,
      args: JSON.parse(r.args as string),
      outcome: r.outcome as string,
    }));
  }
  /** Retention like jobs: audit rows and expired tokens older than `keepSeconds`. */
  async prune(keepSeconds: number, now = Date.now()): Promise<void> {
    const cutoff = new Date(now - keepSeconds * 1000).toISOString();
    await this.sql.run('DELETE FROM audit WHERE at < ?', [cutoff]);
    await this.sql.run('DELETE FROM api_tokens WHERE expires_at < ?', [cutoff]);
  }
}

export const ACCOUNTS_SCHEMA = (seq: string): string => `
  CREATE TABLE users (
    name       TEXT PRIMARY KEY,
    password   TEXT NOT NULL,
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL
  );
  CREATE TABLE api_tokens (
    id         TEXT PRIMARY KEY,
    hash       TEXT NOT NULL UNIQUE,
    username   TEXT NOT NULL,
    eauth      TEXT NOT NULL,
    groups     TEXT NOT NULL,
    created_at TEXT NOT NULL,
    expires_at TEXT NOT NULL,
    revoked_at TEXT
  );
  CREATE INDEX api_tokens_user ON api_tokens (username, created_at);
  CREATE TABLE audit (
    seq        ${seq},
    at         TEXT NOT NULL,
    username   TEXT NOT NULL,
    source     TEXT NOT NULL,
    action     TEXT NOT NULL,
    target     TEXT,
    args       TEXT NOT NULL,
    outcome    TEXT NOT NULL
  );
  CREATE INDEX audit_at ON audit (at);
  CREATE INDEX audit_user ON audit (username, at);
  CREATE INDEX audit_action ON audit (action, at);
`;
