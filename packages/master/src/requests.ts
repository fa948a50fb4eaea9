import { randomUUID } from 'node:crypto';
import { errorLines, isDict } from '@brine/core';
import type { ReqMsg } from '@brine/protocol';
import { masterErrors } from './errors.js';
import type { FileServer } from './file-server.js';
import type { MinionHub, Session } from './hub.js';
import { askWithMjs, type AskHost } from '@brine/compiler';
import type { CompileMode, StateService } from './state-service.js';
import { askWithMine, mineQueryOf, type MineService } from './mine.js';
import { minionEvent } from './minion-event.js';
import { NewKeyLimiter } from './new-key-limiter.js';

/** Jobs a minion may record for itself a minute (schedules every second, several at once, fit). */
export const JOBS_PER_MINUTE = 600;
/** Events a minion may send a minute (event.send): each is stored, and may start reactions. */
export const EVENTS_PER_MINUTE = 600;

const MODES: CompileMode[] = ['top', 'highstate', 'sls'];

/** A schedule's name as a job records it (`schedule:<name>`): printable, bounded. */
const SCHEDULE_NAME = /^[^\u0000-\u001f\u007f]{1,128}$/;

/**
 * Requests one session may have waiting for answers. A minion asks one thing at a time per job
 * (a compile, then its files one by one); a flood of them is refused rather than queued.
 */
export const MAX_OUTSTANDING_REQUESTS = 64;

function str(v: unknown, field: string, op: string, optional = false): string | undefined {
  if (v === undefined && optional) return undefined;
  if (typeof v !== 'string') throw masterErrors.make('BRINE_ERR_MASTER_BAD_REQUEST', { detail: `${op}: '${field}' must be a string` });
  return v;
}

export interface RequestDeps {
  states: StateService;
  files: FileServer;
  hub: Pick<MinionHub, 'askHost'>;
  /** Whether `minion` is one of the job's expected minions (the store's answer). */
  isExpected: (jid: string, minion: string) => Promise<boolean>;
  /** In a cluster: refuses a job published with another tree than this master serves. */
  checkTree?: (jid: string) => Promise<void>;
  /** Records a job a minion runs on its own host (`brine call`, or its schedule named `schedule`); gives its jid. */
  recordCall?: (minion: string, fun: string, arg: unknown[], kwarg: Record<string, unknown>, schedule?: string) => Promise<string>;
  /** Told how long each compile took, in seconds (metrics). */
  onCompile?: (seconds: number) => void;
  /** Told how many states a minion's compile for job `jid` planned. */
  onPlanned?: (jid: string, minion: string, states: number) => void;
  /** The mine: pushes stored for the session's minion, mine.get answered from the store. */
  mine?: MineService;
  /** Fires a minion's event (event.send) on the master's bus; `once` names the occurrence. */
  fireEvent?: (tag: string, data: Record<string, unknown>, once: string) => void;
}

/**
 * What a minion may ask the master. Every answer is for the session's authenticated id and the
 * grains it reported: nothing in the request can name another minion. A session has at most
 * MAX_OUTSTANDING_REQUESTS waiting; more are refused with BRINE_ERR_MASTER_BUSY.
 */
export function requestHandler(deps: RequestDeps) {
  const outstanding = new WeakMap<Session, number>();
  const answer = answerer(deps);
  return async (session: Session, msg: ReqMsg): Promise<unknown> => {
    const n = outstanding.get(session) ?? 0;
    if (n >= MAX_OUTSTANDING_REQUESTS)
      throw masterErrors.make('BRINE_ERR_MASTER_BUSY', { minion: session.minion!, limit: MAX_OUTSTANDING_REQUESTS, op: msg.op });
    outstanding.set(session, n + 1);
    try {
      return await answer(session, msg);
    } finally {
      outstanding.set(session, (outstanding.get(session) ?? 1) - 1);
    }
  };
}

function answerer({ states, files, hub, isExpected, checkTree, recordCall, onCompile, onPlanned, mine, fireEvent }: RequestDeps) {
  /**
   * The request's jid when the minion is part of that job, else undefined: a job's snapshot,
   * host answers and tree check are keyed by its jid, and a made-up one must not pin any.
   */
  // jobs a minion records for itself (schedules, brine call), per minion id: a flood of them
  // would fill the store with jobs nobody published
  const jobsRecorded = new NewKeyLimiter({ perSource: JOBS_PER_MINUTE, total: JOBS_PER_MINUTE * 1000 });
  const eventsSent = new NewKeyLimiter({ perSource: EVENTS_PER_MINUTE, total: EVENTS_PER_MINUTE * 1000 });
  const ownJid = async (session: Session, op: string, v: unknown): Promise<string | undefined> => {
    const jid = str(v, 'jid', op, true);
    if (jid === undefined) return undefined;
    return session.running.has(jid) || (await isExpected(jid, session.minion!)) ? jid : undefined;
  };
  return async (session: Session, msg: ReqMsg): Promise<unknown> => {
    const id = session.minion!;
    const a = msg.args;
    switch (msg.op) {
      case 'state.compile': {
        const mode = a.mode as CompileMode;
        if (!MODES.includes(mode)) throw masterErrors.make('BRINE_ERR_MASTER_BAD_REQUEST', { detail: `state.compile: unknown mode '${String(mode)}'` });
        const sls = a.sls === undefined ? undefined : Array.isArray(a.sls) ? a.sls.map(String) : [String(a.sls)];
        const pillar = isDict(a.pillar) ? a.pillar : undefined;
        if (a.params !== undefined && !isDict(a.params)) {
          throw masterErrors.make('BRINE_ERR_MASTER_BAD_REQUEST', { detail: `${msg.op}: 'params' must be a dictionary` });
        }
        const params = isDict(a.params) ? a.params : undefined;
        const saltenv = str(a.saltenv, 'saltenv', msg.op, true);
        const jid = await ownJid(session, msg.op, a.jid);
        if (jid && checkTree) await checkTree(jid);
        // the templates' host calls go to the host that asked for this compile, mine.get to the store
        const toHost: AskHost = (calls) => hub.askHost(session, calls, jid);
        const ask = askWithMjs(mine ? askWithMine(mine, id, toHost) : toHost, states.mjs);
        const t0 = performance.now();
        const compiled = await states.compile(
          id,
          session.grains,
          {
            mode,
            ...(sls ? { sls } : {}),
            ...(saltenv ? { saltenv } : {}),
            ...(a.raw === true ? { raw: true } : {}),
            ...(pillar ? { pillar } : {}),
            ...(params ? { params } : {}),
            ...(jid ? { jid } : {}),
            ...(session.call ? { call: true } : {}),
            ...(a.test === true ? { test: true } : {}),
          },
          ask,
        );
        onCompile?.((performance.now() - t0) / 1000);
        if (jid && !compiled.failed) onPlanned?.(jid, id, compiled.low.length);
        return compiled;
      }
      case 'pillar.items': {
        const r = await states.pillar(id, session.grains);
        return { pillar: r.pillar, errors: errorLines(r.diagnostics) };
      }
      case 'file.get': {
        const path = str(a.path, 'path', msg.op)!;
        const saltenv = str(a.saltenv, 'saltenv', msg.op, true) ?? 'base';
        return files.get(id, path, saltenv, str(a.have, 'have', msg.op, true), await ownJid(session, msg.op, a.jid));
      }
      case 'file.list': {
        const prefix = str(a.prefix, 'prefix', msg.op)!;
        const saltenv = str(a.saltenv, 'saltenv', msg.op, true) ?? 'base';
        return files.list(id, prefix, saltenv, await ownJid(session, msg.op, a.jid));
      }
      case 'job.new': {
        // a call runs a job nobody published; the daemon's session records only its schedule's runs
        const schedule = str(a.schedule, 'schedule', msg.op, true);
        if ((!session.call && schedule === undefined) || !recordCall) throw masterErrors.make('BRINE_ERR_MASTER_BAD_OP', { op: msg.op });
        if (schedule !== undefined && !SCHEDULE_NAME.test(schedule)) {
          throw masterErrors.make('BRINE_ERR_MASTER_BAD_REQUEST', { detail: `${msg.op}: 'schedule' must be a name of 1 to 128 printable characters` });
        }
        const fun = str(a.fun, 'fun', msg.op)!;
        if (!Array.isArray(a.arg) || !isDict(a.kwarg)) {
          throw masterErrors.make('BRINE_ERR_MASTER_BAD_REQUEST', { detail: `${msg.op}: 'arg' must be a list and 'kwarg' a dictionary` });
        }
        if (jobsRecorded.take(id) !== 'ok') throw masterErrors.make('BRINE_ERR_MASTER_JOB_RATE', { minion: id, rate: JOBS_PER_MINUTE });
        const jid = await recordCall(id, fun, a.arg, a.kwarg, schedule);
        // the call's file and compile requests name this jid: they read the job's snapshot
        session.running.add(jid);
        return { jid };
      }
      case 'mine.update':
      case 'mine.delete':
      case 'mine.flush':
      case 'mine.get':
        if (!mine) throw masterErrors.make('BRINE_ERR_MASTER_BAD_OP', { op: msg.op });
        return mineRequest(mine, id, msg.op, a);
      case 'event.fire':
        return fireMinionEvent(fireEvent, eventsSent, id, a, await ownJid(session, msg.op, a.jid));
      default:
        throw masterErrors.make('BRINE_ERR_MASTER_BAD_OP', { op: msg.op });
    }
  };
}

/** The mine's requests: every write is to the session's own minion's values. */
async function mineRequest(mine: MineService, id: string, op: string, a: Record<string, unknown>): Promise<unknown> {
  switch (op) {
    case 'mine.update':
      await mine.push(id, a.data, a.clear === true);
      return true;
    case 'mine.delete':
      await mine.delete(id, str(a.fun, 'fun', op)!);
      return true;
    case 'mine.flush':
      await mine.delete(id);
      return true;
    default:
      return mine.get(mineQueryOf({ args: [], kwargs: a }), id);
  }
}

/**
 * A minion's event.send: fired on the bus in Salt's shape with the session's id (minion-event.ts),
 * at most EVENTS_PER_MINUTE a minute per minion; the minion's event id makes a resend after a
 * failover the same occurrence to the reactor.
 */
function fireMinionEvent(fireEvent: RequestDeps['fireEvent'], sent: NewKeyLimiter, id: string, a: Record<string, unknown>, jid: string | undefined): true {
  if (!fireEvent) throw masterErrors.make('BRINE_ERR_MASTER_BAD_OP', { op: 'event.fire' });
  const { tag, data } = minionEvent(id, a, jid);
  if (sent.take(id) !== 'ok') throw masterErrors.make('BRINE_ERR_MASTER_EVENT_RATE', { minion: id, rate: EVENTS_PER_MINUTE });
  fireEvent(tag, data, `minion/${id}/${typeof a.eid === 'string' && a.eid.length <= 64 ? a.eid : randomUUID()}`);
  return true;
}
