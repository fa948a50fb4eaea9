import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import t from 'tap';
import { createCommandRunner, createLogger } from '@brine/core';
import { execRegistry } from '@brine/exec';
import { defaultRegistry } from '@brine/states';
import { loadMinionConfig } from '../src/config.js';
import { JobRunner } from '../src/job-runner.js';
import { ResultSpool } from '../src/spool.js';
import { SpoolSender } from '../src/spool-sender.js';

/**
 * A job delivered twice (a master resending after a reconnect) runs once: the second delivery
 * is recognised by its jid and dropped. (A pure function's, test.ping's, runs again: the same
 * answer, stored once by the master; pure-jobs.test.ts.)
 */
t.test('the same jid twice runs once', async (t) => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'brine-dedup-'));
  const spool = new ResultSpool(path.join(dir, 'spool.db'));
  t.teardown(() => {
    spool.close();
    rmSync(dir, { recursive: true, force: true });
  });
  const sent: Array<{ type: string; jid?: string }> = [];
  let lastReturn: (jid: string) => void = () => undefined;
  const runner = new JobRunner({
    config: loadMinionConfig(undefined, { id: 'dedup', data_dir: dir, max_concurrent_jobs: 1 }),
    log: createLogger({ level: 'silent' }),
    spool,
    exec: execRegistry(),
    grains: { id: 'dedup' },
    version: 'test',
    cmd: createCommandRunner(),
    registry: defaultRegistry(),
    sender: new SpoolSender({
      spool,
      log: createLogger({ level: 'silent' }),
      sendFrame: (text) => {
        const msg = JSON.parse(text) as { type: string; jid?: string };
        sent.push(msg);
        if (msg.type === 'ret') lastReturn(msg.jid!);
        return true;
      },
      connected: () => true,
      limits: () => ({ frame: 1024 * 1024, event: 1024 * 1024 - 4096 }),
      emit: () => undefined,
    }),
    connected: () => true,
    request: () => Promise.reject(new Error('no master here')),
    emit: () => undefined,
  });
  const returned = (jid: string) => new Promise<void>((resolve) => (lastReturn = (j) => j === jid && resolve()));
  const first = returned('20250101000000000001');
  runner.onJob({ v: 1, type: 'job', jid: '20250101000000000001', fun: 'test.version', arg: [], kwarg: {} } as never);
  runner.onJob({ v: 1, type: 'job', jid: '20250101000000000001', fun: 'test.version', arg: [], kwarg: {} } as never);
  await first;
  // Jobs run in the order they came: once the next job has returned, a duplicate would have too.
  const second = returned('20250101000000000002');
  runner.onJob({ v: 1, type: 'job', jid: '20250101000000000002', fun: 'test.version', arg: [], kwarg: {} } as never);
  await second;
  t.equal(sent.filter((m) => m.type === 'ret' && m.jid === '20250101000000000001').length, 1, 'one return for the jid delivered twice');
  t.equal(sent.filter((m) => m.type === 'ret' && m.jid === '20250101000000000002').length, 1);
});
