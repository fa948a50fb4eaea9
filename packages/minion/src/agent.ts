import { sign } from 'node:crypto';
import { EventEmitter } from 'node:events';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { TLSSocket } from 'node:tls';
import { createCommandRunner, toBrineError, type CommandRunner, type Logger } from '@brine/core';
import {
  authPayload,
  encode,
  EXPORTER_LABEL,
  parseFrame,
  type Body,
  type JobMsg,
  type MinionToMaster,
} from '@brine/protocol';
import WebSocket from 'ws';
import type { MinionConfig } from './config.js';
import { minionErrors } from './errors.js';
import { bindArgs, type ExecFunction, type RunningJob } from './exec-function.js';
import { EXEC_FUNCTIONS } from './exec-modules.js';
import { collectGrains } from './grains.js';
import { ensureIdentity, type MinionIdentity } from './identity.js';
import { ResultSpool, type SpooledReturn } from './spool.js';

export const MINION_VERSION = '0.1.0';

export interface AgentOptions {
  log: Logger;
  /** Replaces host grains (swarm benchmarks run many agents in one process). */
  grains?: Record<string, unknown>;
  cmd?: CommandRunner;
}

interface Running extends RunningJob {
  abort: AbortController;
}

/**
 * The minion agent: connects to the master over TLS WebSocket, enrolls with its key, reports
 * grains, runs jobs (at most `max_concurrent_jobs` at once) and spools every return until the
 * master acknowledges it. Emits 'ready' (authenticated), 'pending', 'return' and 'fatal'.
 */
export class MinionAgent extends EventEmitter {
  readonly id: string;
  private readonly identity: MinionIdentity;
  private readonly spool: ResultSpool;
  private readonly functions = new Map<string, ExecFunction>();
  private readonly running = new Map<string, Running>();
  private readonly queue: JobMsg[] = [];
  private ws?: WebSocket;
  private authed = false;
  private stopped = false;
  private attempt = 0;
  private timer?: NodeJS.Timeout;
  private grains: Record<string, unknown>;
  private readonly cmd: CommandRunner;
  private readonly log: Logger;

  constructor(
    readonly config: MinionConfig,
    opts: AgentOptions,
  ) {
    super();
    this.id = config.id;
    this.log = opts.log.child({ minion: config.id });
    mkdirSync(config.data_dir, { recursive: true, mode: 0o700 });
    this.identity = ensureIdentity(config.pki_dir);
    this.spool = new ResultSpool(path.join(config.data_dir, 'spool.db'));
    for (const f of EXEC_FUNCTIONS) this.functions.set(f.name, f);
    this.grains = opts.grains ? { ...opts.grains, id: config.id } : collectGrains(config.id, config.grains, MINION_VERSION);
    this.cmd = opts.cmd ?? createCommandRunner();
  }

  start(): void {
    this.connect();
  }

  get connected(): boolean {
    return this.authed;
  }

  stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    for (const r of this.running.values()) r.abort.abort();
    const ws = this.ws;
    return new Promise((resolve) => {
      const finish = () => {
        this.spool.close();
        resolve();
      };
      if (!ws || ws.readyState === WebSocket.CLOSED) return finish();
      ws.once('close', finish);
      ws.terminate();
    });
  }

  // ---- connection --------------------------------------------------------------------

  private url(): string {
    const host = this.config.master.includes(':') ? `[${this.config.master}]` : this.config.master;
    return `wss://${host}:${this.config.master_port}/ws`;
  }

  private connect(): void {
    if (this.stopped) return;
    this.authed = false;
    const ws = new WebSocket(this.url(), {
      // the certificate is self-signed: it is checked by its pinned fingerprint instead
      rejectUnauthorized: false,
      maxPayload: this.config.max_frame_bytes * 4,
      perMessageDeflate: false,
      handshakeTimeout: 10_000,
    });
    this.ws = ws;
    let retryAfter: number | undefined;
    ws.on('open', () => {
      const socket = (ws as unknown as { _socket: TLSSocket })._socket;
      if (!this.checkFingerprint(socket.getPeerCertificate().fingerprint256)) {
        ws.terminate();
        return;
      }
      const binding = socket.exportKeyingMaterial(32, EXPORTER_LABEL, Buffer.alloc(0)).toString('base64');
      (ws as WebSocket & { binding?: string }).binding = binding;
      this.send({ type: 'hello', minion: this.id, pub: this.identity.publicPem, version: MINION_VERSION });
    });
    ws.on('message', (data) => {
      const r = parseFrame(data.toString(), this.config.max_frame_bytes * 4);
      if (!r.ok) {
        this.log.warn({ code: r.error.code }, `bad frame from master: ${r.error.message}`);
        return;
      }
      const msg = r.msg;
      switch (msg.type) {
        case 'challenge': {
          const binding = (ws as WebSocket & { binding?: string }).binding ?? '';
          const sig = sign(null, authPayload(this.id, msg.nonce, binding), this.identity.privateKey);
          this.send({ type: 'auth', sig: sig.toString('base64') });
          return;
        }
        case 'welcome':
          this.onWelcome();
          return;
        case 'key_state':
          if (msg.state === 'pending') {
            retryAfter = this.config.acceptance_wait_time;
            this.log.info({ event: 'key_pending', retry_after: retryAfter }, 'key is pending acceptance on the master');
            this.emit('pending');
          } else {
            retryAfter = Math.max(this.config.acceptance_wait_time, 1);
            this.log.error({ event: `key_${msg.state}`, retry_after: retryAfter }, `the master has ${msg.state} this minion's key`);
            this.emit(msg.state);
          }
          return;
        case 'job':
          this.onJob(msg);
          return;
        case 'ack':
          this.spool.ack(msg.jid);
          this.log.debug({ event: 'ret_acked', jid: msg.jid }, 'the master stored the return');
          this.emit('acked', msg.jid);
          return;
        case 'ping':
          this.send(msg.id === undefined ? { type: 'pong' } : { type: 'pong', id: msg.id });
          return;
        case 'error':
          this.log.warn({ code: msg.code, ref: msg.ref }, `master: ${msg.message}`);
          this.emit('master-error', msg);
          return;
        default:
          return;
      }
    });
    ws.on('error', (err) => this.log.debug({ err: err.message }, 'connection error'));
    ws.on('close', () => {
      if (this.authed) this.log.warn({ event: 'disconnected' }, 'lost the master');
      this.authed = false;
      if (this.ws === ws) this.ws = undefined;
      this.schedule(retryAfter);
    });
  }

  /** Exponential backoff with full jitter, so minions do not all come back at once. */
  private schedule(fixed?: number): void {
    if (this.stopped) return;
    let delay: number;
    if (fixed !== undefined) {
      delay = fixed * 1000 * (this.config.recon_randomize ? 0.75 + Math.random() * 0.5 : 1);
    } else {
      const cap = Math.min(this.config.recon_max, this.config.recon_default * 2 ** this.attempt);
      this.attempt++;
      delay = cap * 1000 * (this.config.recon_randomize ? 0.5 + Math.random() * 0.5 : 1);
    }
    this.timer = setTimeout(() => this.connect(), delay);
  }

  private checkFingerprint(got: string): boolean {
    const file = path.join(this.config.pki_dir, 'master_finger');
    const norm = (s: string) => s.replace(/[^0-9a-f]/gi, '').toUpperCase();
    let want = this.config.master_finger;
    let source = 'master_finger in the minion config';
    if (!want && existsSync(file)) {
      want = readFileSync(file, 'utf8').trim();
      source = `recorded on first contact in ${file}`;
    }
    if (!want) {
      writeFileSync(file, got + '\n', { mode: 0o644 });
      this.log.warn({ event: 'master_finger_recorded', fingerprint: got }, 'trusting the master on first use');
      return true;
    }
    if (norm(want) === norm(got)) return true;
    const e = minionErrors.make('BRINE_ERR_MINION_MASTER_FINGER', { got, want, source, file });
    this.log.fatal({ event: 'master_finger_mismatch', code: e.code }, e.message);
    this.stopped = true;
    this.emit('fatal', e);
    return false;
  }

  private send(msg: Body<MinionToMaster>): boolean {
    const ws = this.ws;
    if (!ws || ws.readyState !== WebSocket.OPEN) return false;
    ws.send(encode(msg));
    return true;
  }

  private onWelcome(): void {
    this.authed = true;
    this.attempt = 0;
    this.send({ type: 'grains', grains: this.grains, running: [...this.running.keys()] });
    const spooled = this.spool.pending();
    for (const ret of spooled) this.send({ type: 'ret', ...ret });
    this.log.info({ event: 'minion_ready', resent: spooled.length }, 'authenticated with the master');
    this.emit('ready');
  }

  // ---- jobs --------------------------------------------------------------------------

  private onJob(job: JobMsg): void {
    if (!this.spool.markSeen(job.jid)) {
      this.log.info({ jid: job.jid }, 'job received twice; ignored');
      return;
    }
    this.queue.push(job);
    this.pump();
  }

  private pump(): void {
    while (this.queue.length > 0 && this.running.size < Math.max(1, this.config.max_concurrent_jobs)) {
      const job = this.queue.shift()!;
      void this.execute(job);
    }
  }

  private async execute(job: JobMsg): Promise<void> {
    const started = new Date().toISOString();
    const abort = new AbortController();
    const entry: Running = { jid: job.jid, fun: job.fun, arg: job.arg, kwarg: job.kwarg, started, pid: process.pid, abort };
    this.running.set(job.jid, entry);
    let ret: unknown;
    let retcode = 0;
    let success = true;
    try {
      const fn = this.functions.get(job.fun);
      if (!fn) throw minionErrors.make('BRINE_ERR_MINION_UNKNOWN_FUNCTION', { fun: job.fun });
      const args = bindArgs(fn, job.arg, job.kwarg);
      const result = await fn.run(args, {
        jid: job.jid,
        grains: this.grains,
        version: MINION_VERSION,
        signal: abort.signal,
        cmd: this.cmd,
        functions: () => [...this.functions.keys()].sort(),
        running: () => [...this.running.values()].map(({ abort: _a, ...r }) => r),
        kill: (jid) => {
          const r = this.running.get(jid);
          if (!r) return false;
          r.abort.abort();
          return true;
        },
      });
      ret = result.return;
      retcode = result.retcode ?? 0;
      success = retcode === 0;
      if (abort.signal.aborted) {
        ret = minionErrors.message('BRINE_ERR_MINION_JOB_KILLED', { jid: job.jid });
        retcode = 1;
        success = false;
      }
    } catch (err) {
      const e = toBrineError(err);
      ret = e.message;
      retcode = 1;
      success = false;
      if (e.code === 'BRINE_ERR_CORE_INTERNAL') this.log.error({ err, jid: job.jid }, 'function failed');
    }
    this.running.delete(job.jid);
    const out: SpooledReturn = { jid: job.jid, fun: job.fun, success, retcode, return: ret, started, finished: new Date().toISOString() };
    if (!this.stopped) {
      this.spool.put(out);
      const sent = this.authed && this.send({ type: 'ret', ...out });
      this.log.info({ event: 'job_done', jid: job.jid, fun: job.fun, success, sent }, 'job finished');
      this.emit('return', out);
    }
    this.pump();
  }

  spooled(): number {
    return this.spool.size();
  }
}
