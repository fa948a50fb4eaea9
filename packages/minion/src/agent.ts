import { sign } from 'node:crypto';
import { EventEmitter } from 'node:events';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { TLSSocket } from 'node:tls';
import { BrineError, collectGrains, createCommandRunner, toBrineError, type CommandRunner, type Logger, type StateRegistry, type StateResult } from '@brine/core';
import { defaultRegistry } from '@brine/states';
import {
  authPayload,
  encode,
  EXPORTER_LABEL,
  parseFrame,
  type Body,
  type JobMsg,
  type MinionToMaster,
  type StateResultItem,
} from '@brine/protocol';
import WebSocket from 'ws';
import type { MinionConfig } from './config.js';
import { minionErrors } from './errors.js';
import { bindArgs, type ExecFunction, type RunningJob } from './exec-function.js';
import { EXEC_FUNCTIONS } from './exec-modules.js';
import { ensureIdentity, type MinionIdentity } from './identity.js';
import { syncStates } from './sync-states.js';
import { remoteFileClient } from './remote-file-client.js';
import { ResultSpool, type SpooledReturn } from './spool.js';
import { STATE_FUNCTIONS } from './state-functions.js';

export const MINION_VERSION = '0.1.0';

export interface AgentOptions {
  log: Logger;
  /** Replaces host grains (swarm benchmarks run many agents in one process). */
  grains?: Record<string, unknown>;
  cmd?: CommandRunner;
  /** State modules (defaults to every module of @brine/states). */
  registry?: StateRegistry;
}

interface PendingRequest {
  op: string;
  args: Record<string, unknown>;
  resolve: (v: unknown) => void;
  reject: (e: Error) => void;
  timer: NodeJS.Timeout;
}

/** Seconds a request to the master may wait (including time spent reconnecting). */
const REQUEST_TIMEOUT_S = 300;

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
  private readonly registry: StateRegistry;
  private readonly requests = new Map<string, PendingRequest>();
  private reqSeq = 0;
  /** Streamed state results not yet handed to the spool and the socket, by jid. */
  private readonly outbox = new Map<string, { fun: string; items: StateResultItem[] }>();
  private outboxScheduled = false;
  /** The state run holding this minion's lock (one highstate at a time). */
  private stateRun?: { jid: string; fun: string; started: Date };

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
    for (const f of [...EXEC_FUNCTIONS, ...STATE_FUNCTIONS]) this.functions.set(f.name, f);
    this.registry = opts.registry ?? defaultRegistry();
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
    this.flushStates();
    for (const [id, r] of this.requests) {
      clearTimeout(r.timer);
      r.reject(new BrineError('BRINE_ERR_MINION_STOPPED', 'the minion is stopping'));
      this.requests.delete(id);
    }
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
        case 'res': {
          const r = this.requests.get(msg.ref);
          if (r) {
            this.requests.delete(msg.ref);
            clearTimeout(r.timer);
            r.resolve(msg.data);
          }
          return;
        }
        case 'state_ack':
          this.spool.ackStates(msg.jid, msg.nums);
          this.emit('states-acked', msg.jid, msg.nums.length);
          return;
        case 'ack':
          this.spool.ack(msg.jid);
          this.log.debug({ event: 'ret_acked', jid: msg.jid }, 'the master stored the return');
          this.emit('acked', msg.jid);
          return;
        case 'ping':
          this.send(msg.id === undefined ? { type: 'pong' } : { type: 'pong', id: msg.id });
          return;
        case 'error': {
          const r = msg.ref !== undefined ? this.requests.get(msg.ref) : undefined;
          if (r) {
            this.requests.delete(msg.ref!);
            clearTimeout(r.timer);
            r.reject(new BrineError(msg.code, msg.message));
            return;
          }
          this.log.warn({ code: msg.code, ref: msg.ref }, `master: ${msg.message}`);
          this.emit('master-error', msg);
          return;
        }
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
    // state results first: a job's return is only stored after its states
    let resentStates = 0;
    for (const g of this.spool.pendingStates()) {
      for (let i = 0; i < g.results.length; i += 500) {
        this.send({ type: 'state_results', jid: g.jid, fun: g.fun, results: g.results.slice(i, i + 500) });
      }
      resentStates += g.results.length;
    }
    const spooled = this.spool.pending();
    for (const ret of spooled) this.send({ type: 'ret', ...ret });
    // requests asked before the connection dropped are asked again (they are all idempotent)
    for (const [id, r] of this.requests) this.send({ type: 'req', id, op: r.op, args: r.args });
    this.log.info({ event: 'minion_ready', resent: spooled.length, resent_states: resentStates }, 'authenticated with the master');
    this.emit('ready');
  }

  // ---- requests to the master and state streaming --------------------------------------

  /** Asks the master; waits through reconnects (the request is sent again after a welcome). */
  request(op: string, args: Record<string, unknown>): Promise<unknown> {
    const id = `r${++this.reqSeq}`;
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.requests.delete(id);
        reject(new BrineError('BRINE_ERR_MINION_MASTER_TIMEOUT', `the master did not answer '${op}' within ${REQUEST_TIMEOUT_S} s`));
      }, REQUEST_TIMEOUT_S * 1000);
      timer.unref();
      this.requests.set(id, { op, args, resolve, reject, timer });
      if (this.authed) this.send({ type: 'req', id, op, args });
    });
  }

  private emitState(jid: string, fun: string, tag: string, result: StateResult): void {
    let box = this.outbox.get(jid);
    if (!box) this.outbox.set(jid, (box = { fun, items: [] }));
    box.items.push({ run_num: result.__run_num__ ?? box.items.length, tag, ret: result as unknown as Record<string, unknown> });
    if (!this.outboxScheduled) {
      this.outboxScheduled = true;
      setImmediate(() => this.flushStates());
    }
  }

  /** Spools and sends the state results gathered since the last flush (one frame per job). */
  private flushStates(): void {
    this.outboxScheduled = false;
    for (const [jid, box] of this.outbox) {
      this.outbox.delete(jid);
      if (box.items.length === 0) continue;
      this.spool.putStates(jid, box.fun, box.items);
      if (this.authed) this.send({ type: 'state_results', jid, fun: box.fun, results: box.items });
    }
  }

  private claimStateRun(jid: string, fun: string): () => void {
    const cur = this.stateRun;
    if (cur) {
      const d = cur.started;
      const months = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
      const p = (n: number, w = 2) => String(n).padStart(w, '0');
      const when = `${d.getFullYear()}, ${months[d.getMonth()]} ${p(d.getDate())} ${p(d.getHours())}:${p(d.getMinutes())}:${p(d.getSeconds())}.${p(d.getMilliseconds() * 1000, 6)}`;
      throw new BrineError(
        'BRINE_ERR_MINION_STATE_RUNNING',
        `The function "${cur.fun}" is running as PID ${process.pid} and was started at ${when} with jid ${cur.jid}`,
      );
    }
    this.stateRun = { jid, fun, started: new Date() };
    return () => {
      if (this.stateRun?.jid === jid) this.stateRun = undefined;
    };
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
        state: {
          id: this.id,
          fun: job.fun,
          request: (op, args) => this.request(op, args),
          emit: (tag, result) => this.emitState(job.jid, job.fun, tag, result),
          claim: () => this.claimStateRun(job.jid, job.fun),
          files: remoteFileClient((op, args) => this.request(op, args), path.join(this.config.data_dir, 'files'), job.jid),
          registry: this.registry,
          syncStates: (saltenv) => syncStates((op, args) => this.request(op, args), this.config.data_dir, this.registry, saltenv, job.jid),
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
      // Salt answers a refused or failed state run with a list of messages
      ret = e.code === 'BRINE_ERR_MINION_STATE_RUNNING' || job.fun.startsWith('state.') ? [e.message] : e.message;
      retcode = 1;
      success = false;
      if (e.code === 'BRINE_ERR_CORE_INTERNAL') this.log.error({ err, jid: job.jid }, 'function failed');
    }
    this.running.delete(job.jid);
    // every streamed state result is spooled (and sent) before the return
    this.flushStates();
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

  spooledStates(): number {
    return this.spool.stateSize();
  }
}
