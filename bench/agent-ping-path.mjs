// CPU per ping on a minion agent's own path, no socket: the job frame parsed, the job run, its
// return encoded and handed to the (counting) sender, the ack frame parsed and applied; 500
// agents' spools (real spool.db files), 100 pings after 20 of warm-up. Prints us of CPU per agent
// and ping. Usage: node bench/agent-ping-path.mjs [minion dist dir] (a copy of an older build
// compares before/after; it must sit inside the repo to find the workspace packages).
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createCommandRunner, createLogger } from '@brine/core';
import { execRegistry } from '@brine/exec';
import { defaultRegistry } from '@brine/states';
import { parseFrame, encode } from '@brine/protocol';
const root = path.resolve(process.argv[2] ?? new URL('../packages/minion/dist', import.meta.url).pathname);
const { JobRunner } = await import(`${root}/job-runner.js`);
const { ResultSpool } = await import(`${root}/spool.js`);
const { SpoolSender } = await import(`${root}/spool-sender.js`);
const { loadMinionConfig } = await import(`${root}/config.js`);
const dir = mkdtempSync(path.join(os.tmpdir(), 'agent-path-'));
const log = createLogger({ level: 'silent' });
const exec = execRegistry();
const registry = defaultRegistry();
const cmd = createCommandRunner();
let sentBytes = 0;
const agents = [];
for (let i = 0; i < 500; i++) {
  const d = path.join(dir, String(i));
  const config = loadMinionConfig(undefined, { id: `m${i}`, data_dir: d });
  const spool = new ResultSpool(path.join(dir, `${i}.db`));
  const sender = new SpoolSender({
    spool,
    log,
    sendFrame: (t) => ((sentBytes += t.length), true),
    connected: () => true,
    limits: () => ({ frame: 1 << 20, event: (1 << 20) - 4096 }),
    emit: () => undefined,
  });
  const runner = new JobRunner({
    config,
    log,
    spool,
    exec,
    grains: {},
    version: 't',
    cmd,
    registry,
    sender,
    connected: () => true,
    request: () => Promise.reject(new Error('x')),
    emit: () => undefined,
  });
  agents.push({ spool, runner });
}
let n = 20260101000000000000n;
const round = () => {
  const jid = String(n++);
  const job = encode({ type: 'job', jid, fun: 'test.ping', arg: [], kwarg: {}, tgt: 'x', tgt_type: 'glob', user: 'root' });
  const ack = encode({ type: 'ack', jid });
  for (const a of agents) {
    const r = parseFrame(Buffer.from(job).toString(), 1 << 22);
    a.runner.onJob(r.msg);
    const k = parseFrame(Buffer.from(ack).toString(), 1 << 22);
    a.spool.ack(k.msg.jid);
  }
};
for (let i = 0; i < 20; i++) round();
await new Promise((r) => setImmediate(r));
const c0 = process.cpuUsage();
for (let i = 0; i < 100; i++) {
  round();
  await new Promise((r) => setImmediate(r));
}
const c = process.cpuUsage(c0);
console.log(JSON.stringify({ dist: root, us_per_ping: ((c.user + c.system) / (100 * 500)).toFixed(2), sent_bytes: sentBytes }));
for (const a of agents) a.spool.close();
rmSync(dir, { recursive: true, force: true });
