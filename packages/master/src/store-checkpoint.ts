import { statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';
import type Database from 'better-sqlite3';

/** What one checkpoint did (SQLite's wal_checkpoint row), or why it failed. */
export interface CheckpointResult {
  busy: number;
  log: number;
  checkpointed: number;
  error?: string;
}

// The worker is a few lines of CommonJS given as a string, so that it runs the same from the
// sources, the compiled packages and the CLI's bundle; it loads the better-sqlite3 the master uses.
const WORKER = `
const { parentPort, workerData } = require('node:worker_threads');
const Database = require(workerData.sqlite);
const db = new Database(workerData.file, { fileMustExist: true });
db.pragma('busy_timeout = 5000');
db.pragma('synchronous = NORMAL');
db.pragma('wal_autocheckpoint = 0');
const closed = new Int32Array(workerData.closed);
parentPort.on('message', (m) => {
  if (m === 'close') {
    db.close();
    parentPort.close();
    Atomics.store(closed, 0, 1);
    Atomics.notify(closed, 0);
    return;
  }
  try {
    const r = db.pragma('wal_checkpoint(PASSIVE)')[0];
    parentPort.postMessage({ busy: r.busy, log: r.log, checkpointed: r.checkpointed });
  } catch (err) {
    parentPort.postMessage({ busy: 1, log: 0, checkpointed: 0, error: String(err && err.message) });
  }
});
`;

/**
 * WAL checkpoints of the master's SQLite store, on a worker thread with its own connection.
 * A checkpoint copies the WAL into the database file and syncs both: on the connection that
 * commits (SQLite's autocheckpoint) that is tens of milliseconds of the event loop, every
 * thousand pages. The master's connection has wal_autocheckpoint = 0 and, after a commit,
 * `maybe()` asks the worker for a PASSIVE checkpoint once the WAL passes `bytes`: it never waits
 * on the writer or the readers, and what it has not copied it copies next time. Crash safety is
 * SQLite's own: a commit is in the WAL before anyone is acknowledged, and a checkpoint only
 * copies committed frames.
 */
export class WalCheckpointer {
  /** Hears every checkpoint's result (tests, logs). */
  onCheckpoint: (r: CheckpointResult) => void = () => undefined;
  private worker: Worker | undefined;
  private running = false;
  private closed = false;
  private size = 0;
  private readonly file: string;
  private readonly wal: string;
  private readonly db: Database.Database;

  /** `db` is the master's connection: from now on it commits and never checkpoints. */
  constructor(file: string, db: Database.Database) {
    this.file = file;
    this.wal = `${file}-wal`;
    this.db = db;
    db.pragma('wal_autocheckpoint = 0');
    this.bytes = 4096 * 1000; // SQLite's default: 1,000 pages of 4 KiB
  }

  /** Checkpoint once the WAL is larger than this. */
  get bytes(): number {
    return this.size;
  }
  set bytes(n: number) {
    this.size = n;
    // a WAL that restarts after a checkpoint is cut back to this size: it grows past it only
    // with frames not checkpointed yet, which is what `maybe` looks for
    this.db.pragma(`journal_size_limit = ${n}`);
  }

  /** After a commit: a checkpoint when the WAL has grown past `bytes` and none is under way. */
  maybe(): void {
    if (this.running || this.closed) return;
    let size: number;
    try {
      size = statSync(this.wal).size;
    } catch {
      return; // no WAL (yet)
    }
    if (size > this.size) this.run();
  }

  /** A checkpoint now (unless one is under way). */
  run(): void {
    if (this.running || this.closed) return;
    this.running = true;
    this.start().postMessage('checkpoint');
  }

  private start(): Worker {
    if (this.worker) return this.worker;
    const sqlite = createRequire(import.meta.url).resolve('better-sqlite3');
    this.closedFlag = new SharedArrayBuffer(4);
    const w = new Worker(WORKER, { eval: true, workerData: { file: this.file, sqlite, closed: this.closedFlag } });
    w.unref(); // an idle checkpointer keeps no process alive
    w.on('message', (r: CheckpointResult) => {
      this.running = false;
      this.onCheckpoint(r);
    });
    w.on('error', (err) => {
      // the next checkpoint starts a new worker; meanwhile the WAL only grows
      this.running = false;
      this.worker = undefined;
      this.onCheckpoint({ busy: 1, log: 0, checkpointed: 0, error: err.message });
    });
    this.worker = w;
    return w;
  }

  private closedFlag = new SharedArrayBuffer(4);

  /**
   * Closes the worker's connection and waits for it (a checkpoint under way finishes first), so
   * that the master's own connection is the last: SQLite then checkpoints and removes the WAL.
   */
  close(): void {
    this.closed = true;
    const w = this.worker;
    this.worker = undefined;
    if (!w) return;
    w.postMessage('close');
    Atomics.wait(new Int32Array(this.closedFlag), 0, 0, 5000);
  }
}
