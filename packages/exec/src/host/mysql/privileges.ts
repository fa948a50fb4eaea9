import { quoteName } from './sql.js';

/**
 * Privilege names GRANT takes: the MySQL 8 manual's static and dynamic privileges and
 * MariaDB's own, and which of them mean the same.
 */

const STATIC = [
  'ALL PRIVILEGES',
  'ALTER',
  'ALTER ROUTINE',
  'CREATE',
  'CREATE ROLE',
  'CREATE ROUTINE',
  'CREATE TABLESPACE',
  'CREATE TEMPORARY TABLES',
  'CREATE USER',
  'CREATE VIEW',
  'DELETE',
  'DROP',
  'DROP ROLE',
  'EVENT',
  'EXECUTE',
  'FILE',
  'GRANT OPTION',
  'INDEX',
  'INSERT',
  'LOCK TABLES',
  'PROCESS',
  'PROXY',
  'REFERENCES',
  'RELOAD',
  'REPLICATION CLIENT',
  'REPLICATION SLAVE',
  'SELECT',
  'SHOW DATABASES',
  'SHOW VIEW',
  'SHUTDOWN',
  'SUPER',
  'TRIGGER',
  'UPDATE',
  'USAGE',
];

const MYSQL_DYNAMIC = [
  'APPLICATION_PASSWORD_ADMIN',
  'AUDIT_ABORT_EXEMPT',
  'AUDIT_ADMIN',
  'AUTHENTICATION_POLICY_ADMIN',
  'BACKUP_ADMIN',
  'BINLOG_ADMIN',
  'BINLOG_ENCRYPTION_ADMIN',
  'CLONE_ADMIN',
  'CONNECTION_ADMIN',
  'ENCRYPTION_KEY_ADMIN',
  'FIREWALL_EXEMPT',
  'FLUSH_OPTIMIZER_COSTS',
  'FLUSH_STATUS',
  'FLUSH_TABLES',
  'FLUSH_USER_RESOURCES',
  'GROUP_REPLICATION_ADMIN',
  'GROUP_REPLICATION_STREAM',
  'INNODB_REDO_LOG_ARCHIVE',
  'INNODB_REDO_LOG_ENABLE',
  'PASSWORDLESS_USER_ADMIN',
  'PERSIST_RO_VARIABLES_ADMIN',
  'REPLICATION_APPLIER',
  'REPLICATION_SLAVE_ADMIN',
  'RESOURCE_GROUP_ADMIN',
  'RESOURCE_GROUP_USER',
  'ROLE_ADMIN',
  'SENSITIVE_VARIABLES_OBSERVER',
  'SERVICE_CONNECTION_ADMIN',
  'SESSION_VARIABLES_ADMIN',
  'SET_USER_ID',
  'SHOW_ROUTINE',
  'SKIP_QUERY_REWRITE',
  'SYSTEM_USER',
  'SYSTEM_VARIABLES_ADMIN',
  'TABLE_ENCRYPTION_ADMIN',
  'XA_RECOVER_ADMIN',
];

const MARIADB = [
  'BINLOG ADMIN',
  'BINLOG MONITOR',
  'BINLOG REPLAY',
  'CONNECTION ADMIN',
  'DELETE HISTORY',
  'FEDERATED ADMIN',
  'READ_ONLY ADMIN',
  'REPLICA MONITOR',
  'REPLICATION MASTER ADMIN',
  'REPLICATION REPLICA',
  'REPLICATION SLAVE ADMIN',
  'SET USER',
  'SHOW CREATE ROUTINE',
  'SLAVE MONITOR',
];

const KNOWN = new Set([...STATIC, ...MYSQL_DYNAMIC, ...MARIADB]);

/**
 * Names one privilege goes by: `ALL` is short for `ALL PRIVILEGES`; MariaDB 10.5 renamed
 * REPLICATION CLIENT to BINLOG MONITOR and added REPLICATION REPLICA and REPLICA MONITOR as
 * other names of REPLICATION SLAVE and SLAVE MONITOR, and SHOW GRANTS prints its own choice.
 */
const SAME_AS: Record<string, string> = {
  ALL: 'ALL PRIVILEGES',
  'BINLOG MONITOR': 'REPLICATION CLIENT',
  'REPLICATION REPLICA': 'REPLICATION SLAVE',
  'REPLICA MONITOR': 'SLAVE MONITOR',
};

export interface Privilege {
  /** upper case, single-spaced, as GRANT takes it */
  name: string;
  /** the columns of a column privilege, else empty */
  columns: string[];
}

/** The name upper-cased and single-spaced, or null when GRANT knows no such privilege. */
export function privilegeName(words: string[]): string | null {
  const name = words.join(' ').toUpperCase();
  const full = name === 'ALL' ? 'ALL PRIVILEGES' : name;
  return KNOWN.has(full) ? full : null;
}

/** `SELECT`, `INSERT (`a`, `b`)`: privileges as GRANT and REVOKE take them. */
export function privilegesSql(privileges: Privilege[]): string {
  return privileges.map((p) => (p.columns.length ? `${p.name} (${p.columns.map(quoteName).join(', ')})` : p.name)).join(', ');
}

/** One key per privilege and column, under the name all its aliases share (column names ignore case). */
export function privilegeKeys(privileges: Privilege[]): string[] {
  return privileges.flatMap((p) => {
    const name = SAME_AS[p.name] ?? p.name;
    return p.columns.length ? p.columns.map((c) => `${name} (${c.toLowerCase()})`) : [name];
  });
}

/** Whether privileges held at one level (keys) include `want`: ALL PRIVILEGES holds all but GRANT OPTION and PROXY. */
export function holds(held: Set<string>, want: string): boolean {
  if (held.has(want)) return true;
  const name = want.replace(/ \(.*\)$/s, '');
  if (held.has(name)) return true;
  return held.has('ALL PRIVILEGES') && name !== 'GRANT OPTION' && name !== 'PROXY';
}
