import { readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { masterErrors } from './errors.js';

export interface HeldLock {
  readonly file: string;
  release(): void;
}

/**
 * An exclusive lock on `file` that the kernel drops when the process dies, however it dies.
 * Node has no flock(2); SQLite's locks are POSIX fcntl locks, so a small side database held in
 * `locking_mode=EXCLUSIVE` after one exclusive transaction is exactly that (checked by hand: a
 * SIGKILLed holder's lock is free at once). Another connection, in this process or another, gets
 * SQLITE_BUSY at once. Nothing is written in it: its existence says nothing, only the lock does.
 */
export function holdLock(file: string): HeldLock | undefined {
  let db: Database.Database;
  try {
    db = new Database(file, { timeout: 0 });
  } catch (err) {
    throw masterErrors.make('BRINE_ERR_MASTER_LOCKED', { file, detail: `cannot open the lock file: ${(err as Error).message}` });
  }
  try {
    db.pragma('locking_mode = EXCLUSIVE');
    db.pragma('journal_mode = MEMORY');
    db.exec('BEGIN EXCLUSIVE');
    db.exec('COMMIT');
  } catch (err) {
    db.close();
    if ((err as { code?: string }).code === 'SQLITE_BUSY') return undefined;
    throw masterErrors.make('BRINE_ERR_MASTER_LOCKED', { file, detail: `cannot lock: ${(err as Error).message}` });
  }
  let released = false;
  return {
    file,
    release() {
      if (released) return;
      released = true;
      db.close();
    },
  };
}

/** Earlier versions kept the owner's pid in `master.lock`: a stale one only blocked restarts. */
function dropPidFile(dataDir: string): void {
  const old = path.join(dataDir, 'master.lock');
  try {
    if (/^\d+\s*$/.test(readFileSync(old, 'utf8'))) rmSync(old, { force: true });
  } catch {
    // none there
  }
}

/**
 * One master per data_dir: two would share its keys and certificate and answer one fleet twice.
 * The lock is `<data_dir>/master-lock.db`, held for the life of the process.
 */
export function lockDataDir(dataDir: string): HeldLock {
  dropPidFile(dataDir);
  const file = path.join(dataDir, 'master-lock.db');
  const lock = holdLock(file);
  if (!lock) {
    throw masterErrors.make('BRINE_ERR_MASTER_LOCKED', {
      file,
      detail: `another master already uses the data_dir ${dataDir} (it holds this lock; 'fuser ${file}' names it); stop it, or give this one its own data_dir`,
    });
  }
  return lock;
}

/**
 * One master per SQLite store, whatever its data_dir: `<store>-lock` beside the file (the store
 * itself stays free for readers, `brine store migrate` and backups). A PostgreSQL store takes no
 * lock: a cluster of masters shares it by design.
 */
export function lockSqliteStore(storeFile: string): HeldLock {
  const file = `${storeFile}-lock`;
  const lock = holdLock(file);
  if (!lock) {
    throw masterErrors.make('BRINE_ERR_MASTER_STORE_LOCKED', { file: storeFile, lock: file });
  }
  return lock;
}
