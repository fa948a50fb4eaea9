// The spool sender's paths one by one (refusal budgets, trimming and re-spooling, the faulty item
// of a batch, byte batching), on a real spool.db: each check is one a mutant of spool-sender.ts
// would otherwise pass.
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import t, { type Test } from 'tap';
import type { Logger } from '@brine/core';
import type { StateResultItem } from '@brine/protocol';
import { ResultSpool } from '../src/spool.js';
import { SPOOL_MAX_REFUSALS, SpoolSender } from '../src/spool-sender.js';

const JID = '20250101000000000001';
const FRAME = 64 * 1024;
const ROOM = 4096;

interface Line {
  level: string;
  fields: Record<string, unknown>;
  msg: string;
}

function setup(t: Test, opts: { connected?: boolean; sendOk?: boolean; frame?: number; event?: number } = {}) {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'brine-sender-paths-'));
  const spool = new ResultSpool(path.join(dir, 'spool.db'));
  t.teardown(() => {
    spool.close();
    rmSync(dir, { recursive: true, force: true });
  });
  const frames: Array<Record<string, unknown> & { bytes: number }> = [];
  const events: unknown[][] = [];
  const lines: Line[] = [];
  const at = (level: string) => (fields: Record<string, unknown>, msg: string) => lines.push({ level, fields, msg });
  const log = { warn: at('warn'), error: at('error'), info: at('info'), debug: at('debug') } as unknown as Logger;
  const frame = opts.frame ?? FRAME;
  const sender = new SpoolSender({
    spool,
    log,
    sendFrame: (text) => {
      frames.push({ ...(JSON.parse(text) as Record<string, unknown>), bytes: Buffer.byteLength(text) });
      return opts.sendOk ?? true;
    },
    connected: () => opts.connected ?? true,
    limits: () => ({ frame, event: opts.event ?? frame - ROOM }),
    emit: (...args) => events.push(args),
  });
  const quarantined = () => {
    const qdir = path.join(dir, 'spool-quarantine');
    let files: string[] = [];
    try {
      files = readdirSync(qdir).sort();
    } catch {
      return [];
    }
    return files.map((f) => JSON.parse(readFileSync(path.join(qdir, f), 'utf8')) as { kind: string; reason: string; items: string[] });
  };
  return { spool, sender, frames, events, lines, quarantined };
}

const ret = (extra: Record<string, unknown> = {}) => ({
  jid: JID,
  fun: 'cmd.run',
  success: true,
  retcode: 0,
  return: 'ok',
  started: 'a',
  finished: 'b',
  ...extra,
});

const item = (run_num: number, size = 10, extra: Partial<StateResultItem> = {}): StateResultItem => ({
  run_num,
  tag: `test_|-s${run_num}_|-s${run_num}_|-nop`,
  ret: { result: true, comment: 'c', changes: { out: 'y'.repeat(size) } },
  ...extra,
});

t.test('finish: spooled and sent when connected; the answer is what sendFrame says', async (t) => {
  const ok = setup(t);
  t.equal(ok.sender.finish(ret()), true);
  t.equal(ok.frames.length, 1);
  t.equal(ok.frames[0]!.type, 'ret');
  t.equal(ok.frames[0]!.return, 'ok');
  t.equal(ok.spool.size(), 1, 'kept until acknowledged');
  t.same(ok.lines, [], 'nothing trimmed, nothing logged');

  const refusedBySocket = setup(t, { sendOk: false });
  t.equal(refusedBySocket.sender.finish(ret()), false, 'sendFrame false: not sent');

  const off = setup(t, { connected: false });
  t.equal(off.sender.finish(ret()), false);
  t.equal(off.frames.length, 0, 'nothing sent while disconnected');
  t.equal(off.spool.size(), 1, 'but spooled');
});

t.test('finish: an oversized return is trimmed before it is spooled, and the trim is logged', async (t) => {
  const { sender, spool, frames, lines } = setup(t);
  t.equal(sender.finish(ret({ return: 'x'.repeat(200_000) })), true);
  t.ok(frames[0]!.bytes <= FRAME, `${frames[0]!.bytes} bytes`);
  const kept = spool.pending()[0]!.return as string;
  t.ok(kept.length < FRAME - ROOM, 'the spool holds the trimmed return');
  t.match(kept, /trimmed/);
  t.equal(lines.length, 1);
  t.equal(lines[0]!.level, 'warn');
  t.match(lines[0]!.fields, { event: 'result_trimmed', jid: JID, budget: FRAME - ROOM });
  t.ok((lines[0]!.fields.dropped as number) > 0);
  t.match(lines[0]!.msg, new RegExp(`the return of job ${JID} is trimmed by \\d+ bytes to fit ${FRAME - ROOM} bytes`));
});

t.test('streamStates: spooled always, sent only when connected', async (t) => {
  const off = setup(t, { connected: false });
  off.sender.streamStates(JID, 'state.apply', [item(0), item(1)]);
  t.equal(off.frames.length, 0);
  t.equal(off.spool.stateSize(), 2);

  const on = setup(t);
  on.sender.streamStates(JID, 'state.apply', [item(0), item(1)]);
  t.equal(on.frames.length, 1, 'small items go in one frame');
  t.match(on.frames[0], { type: 'state_results', jid: JID, fun: 'state.apply' });
  t.same(
    (on.frames[0]!.results as StateResultItem[]).map((r) => r.run_num),
    [0, 1],
  );
  t.same(on.lines, [], 'nothing trimmed, nothing logged');
});

t.test('streamStates: only the oversized items are trimmed, and the log names them', async (t) => {
  const { sender, spool, frames, lines } = setup(t);
  const items = Array.from({ length: 25 }, (_, i) => item(i, 70_000));
  items.push(item(25, 10));
  sender.streamStates(JID, 'state.apply', items);
  const sent = frames.flatMap((f) => f.results as StateResultItem[]);
  t.equal(sent.length, 26);
  t.same(sent[25], item(25, 10), 'the small one goes untouched');
  t.match(JSON.stringify(sent[0]!.ret), /trimmed/);
  t.equal(lines.length, 1);
  t.match(lines[0]!.fields, { event: 'result_trimmed', jid: JID, budget: FRAME - ROOM });
  t.same(
    lines[0]!.fields.run_nums,
    Array.from({ length: 20 }, (_, i) => i),
    'the first 20 run numbers',
  );
  t.equal(lines[0]!.msg, `25 state result(s) of job ${JID} trimmed to fit ${FRAME - ROOM} bytes`);
  const pending = spool.pendingStates()[0]!.results;
  t.match(JSON.stringify(pending[0]!.ret), /trimmed/, 'the spool holds the trimmed item');
});

t.test('resendAll: counts what it sent, refits to the limit and re-spools only the trimmed', async (t) => {
  const { sender, spool, frames } = setup(t);
  spool.putStates(JID, 'state.apply', [item(0, 10), item(1, 100_000)]);
  spool.putStates('20250101000000000002', 'state.sls', [item(0, 10)]);
  spool.put(ret());
  spool.put(ret({ jid: '20250101000000000003', return: 'z'.repeat(100_000) }));
  t.same(sender.resendAll(), { states: 3, rets: 2 });
  const types = frames.map((f) => f.type);
  t.same(types.slice(-2), ['ret', 'ret'], 'returns last');
  t.ok(
    types.slice(0, -2).every((x) => x === 'state_results'),
    'state results first',
  );
  const [g1] = spool.pendingStates(undefined, JID);
  t.same(g1!.results[0], item(0, 10), 'the small item is kept as it was');
  t.match(JSON.stringify(g1!.results[1]!.ret), /trimmed/, 'the large one is re-spooled trimmed');
  const big = spool.pendingOf('20250101000000000003')!;
  t.ok((big.return as string).length < FRAME, 'the large return is re-spooled trimmed');
  t.equal(spool.pendingOf(JID)!.return, 'ok');
});

t.test('resendAll: a garbled state row is quarantined by its run number, the others are sent', async (t) => {
  const { sender, spool, frames, events, quarantined } = setup(t);
  spool.putStates(JID, 'state.apply', [item(0), item(1)]);
  (spool as unknown as { db: { prepare(s: string): { run(...a: unknown[]): void } } }).db
    .prepare('UPDATE states SET payload = ? WHERE jid = ? AND run_num = 1')
    .run('{"run_num":', JID);
  t.same(sender.resendAll(), { states: 1, rets: 0 });
  t.same(
    frames.flatMap((f) => (f.results as StateResultItem[]).map((r) => r.run_num)),
    [0],
  );
  t.same(events, [['quarantined', JID, 'state_results']]);
  const q = quarantined();
  t.equal(q.length, 1);
  t.match(q[0]!.reason, /^spooled state result 1 is /);
  t.equal(spool.stateSize(), 1);
});

t.test('a batch with a faulty item: that item is quarantined, the others go on', async (t) => {
  const { sender, frames, events, lines, quarantined } = setup(t);
  const bad = { run_num: 1, tag: 5, ret: { result: true } } as unknown as StateResultItem;
  sender.streamStates(JID, 'state.apply', [item(0), bad, item(2)]);
  t.equal(frames.length, 1);
  t.match(frames[0], { type: 'state_results', jid: JID, fun: 'state.apply' });
  t.same(
    (frames[0]!.results as StateResultItem[]).map((r) => r.run_num),
    [0, 2],
  );
  t.same(events, [['quarantined', JID, 'state_results']]);
  const q = quarantined();
  t.equal(q.length, 1);
  t.equal(q[0]!.items.length, 1, 'only the faulty item');
  t.match(q[0]!.items[0], /"run_num":1/);
  t.match(q[0]!.reason, /^the master would refuse it: /);
  const err = lines.find((l) => l.level === 'error')!;
  t.match(err.fields, { event: 'spool_quarantined', code: 'BRINE_ERR_MINION_SPOOL_QUARANTINED', jid: JID, kind: 'state_results' });
  t.match(err.msg, /the state results of job/);
});

t.test('a batch whose every item is faulty sends nothing', async (t) => {
  const { sender, frames, events } = setup(t);
  const bad = (n: number) => ({ run_num: n, tag: 5, ret: {} }) as unknown as StateResultItem;
  sender.streamStates(JID, 'state.apply', [bad(0), bad(1)]);
  t.equal(frames.length, 0);
  t.equal(events.length, 2);
});

t.test('a return the protocol refuses is quarantined at finish, and the log says return', async (t) => {
  const { sender, frames, events, lines, quarantined } = setup(t);
  t.equal(sender.finish(ret({ retcode: 'zero' })), false);
  t.equal(frames.length, 0);
  t.same(events, [['quarantined', JID, 'ret']]);
  t.match(quarantined()[0]!.reason, /^the master would refuse it: /);
  const err = lines.find((l) => l.level === 'error')!;
  t.match(err.fields, { event: 'spool_quarantined', kind: 'ret' });
  t.match(err.msg, new RegExp(`^the return of job ${JID} moved out of spool.db`));
});

t.test('state results are batched by bytes of the frame', async (t) => {
  const { sender, frames } = setup(t, { frame: 16 * 1024, event: 16 * 1024 });
  // each item about 1 KiB: a 12 KiB batch room holds 11 of them
  const items = Array.from({ length: 30 }, (_, i) => item(i, 900));
  sender.streamStates(JID, 'state.apply', items);
  const sizes = frames.map((f) => (f.results as unknown[]).length);
  t.ok(frames.length >= 3, `${frames.length} frames`);
  t.equal(
    sizes.reduce((a, b) => a + b, 0),
    30,
  );
  for (const f of frames) t.ok(f.bytes <= 16 * 1024 - ROOM + 200, `frame of ${f.bytes} bytes within the room`);
  t.ok(sizes[0]! > 5, 'batches are full, not one item each');
});

t.test('onRefusal of a return: trimmed to half the refused limit, re-spooled, then quarantined', async (t) => {
  const { sender, spool, frames, events, lines, quarantined } = setup(t);
  spool.put(ret({ return: 'x'.repeat(40_000) }));
  const refusal = { code: 'BRINE_ERR_PROTO_X', message: 'too big', jid: JID, refused: 'ret' as const, limit: 32 * 1024 };
  t.equal(sender.onRefusal(refusal), true);
  const budget1 = Math.floor((32 * 1024 - ROOM) / 2);
  t.equal(frames.length, 1);
  t.equal(frames[0]!.type, 'ret');
  t.ok(frames[0]!.bytes <= budget1 + 1024, `${frames[0]!.bytes} bytes, budget ${budget1}`);
  t.ok(frames[0]!.bytes > budget1 / 2, 'not trimmed further than asked');
  const warn = lines.find((l) => l.fields.event === 'result_refused')!;
  t.match(warn.fields, { jid: JID, refused: 'ret', code: 'BRINE_ERR_PROTO_X', refusals: 1, budget: budget1 });
  t.equal(warn.msg, `the master refused the ret of job ${JID}: sending it again trimmed to ${budget1} bytes`);
  t.ok((spool.pendingOf(JID)!.return as string).length < budget1, 'the spool holds the trimmed return');

  t.equal(sender.onRefusal(refusal), true);
  t.equal(frames.length, 2);
  t.ok(frames[1]!.bytes < frames[0]!.bytes, 'the second try is smaller');
  t.match(lines.filter((l) => l.fields.event === 'result_refused')[1]!.fields, { refusals: 2, budget: Math.floor((32 * 1024 - ROOM) / 4) });

  t.equal(sender.onRefusal(refusal), true);
  t.equal(frames.length, 2, 'not sent a third time');
  t.equal(spool.size(), 0);
  t.same(events, [['quarantined', JID, 'ret']]);
  t.equal(quarantined()[0]!.reason, `refused ${SPOOL_MAX_REFUSALS} times by the master (BRINE_ERR_PROTO_X: too big)`);
});

t.test('onRefusal: the budget follows our frame when the master names none, and never goes under 1 KiB', async (t) => {
  const a = setup(t, { frame: 20 * 1024 });
  a.spool.put(ret({ return: 'x'.repeat(40_000) }));
  a.sender.onRefusal({ code: 'C', message: 'm', jid: JID, refused: 'ret' });
  t.match(a.lines.find((l) => l.fields.event === 'result_refused')!.fields, { budget: Math.floor((20 * 1024 - ROOM) / 2) });

  const b = setup(t, { frame: 20 * 1024 });
  b.spool.put(ret({ return: 'x'.repeat(40_000) }));
  b.sender.onRefusal({ code: 'C', message: 'm', jid: JID, refused: 'ret', limit: 64 * 1024 });
  t.match(b.lines.find((l) => l.fields.event === 'result_refused')!.fields, { budget: Math.floor((20 * 1024 - ROOM) / 2) }, 'the smaller limit wins');

  const c = setup(t);
  c.spool.put(ret({ return: 'x'.repeat(40_000) }));
  c.sender.onRefusal({ code: 'C', message: 'm', jid: JID, refused: 'ret', limit: 5000 });
  t.match(c.lines.find((l) => l.fields.event === 'result_refused')!.fields, { budget: 1024 });
  t.ok(c.frames[0]!.bytes < 3000, `${c.frames[0]!.bytes} bytes`);
});

t.test('onRefusal of state results: only that job, trimmed, batched within the budget', async (t) => {
  const { sender, spool, frames } = setup(t);
  const other = '20250101000000000002';
  spool.putStates(JID, 'state.apply', [item(0, 40_000), item(1, 40_000), item(2, 10)]);
  spool.putStates(other, 'state.apply', [item(0, 10)]);
  t.equal(sender.onRefusal({ code: 'C', message: 'm', jid: JID, refused: 'state_results', limit: 64 * 1024 }), true);
  const budget = Math.floor((64 * 1024 - ROOM) / 2);
  t.ok(
    frames.every((f) => f.jid === JID),
    'the other job is not resent',
  );
  t.same(
    frames.flatMap((f) => (f.results as StateResultItem[]).map((r) => r.run_num)),
    [0, 1, 2],
  );
  // each trimmed item fills the budget's batch room on its own: three frames, not two
  t.equal(frames.length, 3, 'batched within the smaller budget');
  for (const f of frames) t.ok(f.bytes <= budget + 256, `frame of ${f.bytes} bytes within ${budget}`);
  const kept = spool.pendingStates(undefined, JID)[0]!.results;
  t.ok(JSON.stringify(kept[0]).length < 40_000, 'the spool holds the trimmed items');
  t.same(spool.pendingStates(undefined, other)[0]!.results, [item(0, 10)]);
});

t.test('onRefusal: not a refusal of ours', async (t) => {
  const { sender, spool, frames } = setup(t);
  spool.put(ret());
  t.equal(sender.onRefusal({ code: 'C', message: 'm', refused: 'ret' }), false, 'no jid');
  t.equal(sender.onRefusal({ code: 'C', message: 'm', jid: JID }), false, 'nothing refused');
  t.equal(sender.onRefusal({ code: 'C', message: 'm', jid: JID, refused: 'other' as 'ret' }), false, 'something else refused');
  t.equal(frames.length, 0);
  t.equal(spool.refused(JID, 'ret'), 1, 'no refusal was counted before');
});

t.test('onRefusal: a garbled spooled return is quarantined instead of resent', async (t) => {
  const { sender, spool, frames, events, quarantined } = setup(t);
  spool.put(ret());
  (spool as unknown as { db: { prepare(s: string): { run(...a: unknown[]): void } } }).db
    .prepare('UPDATE spool SET payload = ? WHERE jid = ?')
    .run('{"jid":', JID);
  t.equal(sender.onRefusal({ code: 'C', message: 'm', jid: JID, refused: 'ret' }), true);
  t.equal(frames.length, 0);
  t.same(events, [['quarantined', JID, 'ret']]);
  t.match(quarantined()[0]!.reason, /^the spooled return is /);
});

t.test('onRefusal: a garbled state row is quarantined by run number', async (t) => {
  const { sender, spool, frames, quarantined } = setup(t);
  spool.putStates(JID, 'state.apply', [item(0), item(1)]);
  (spool as unknown as { db: { prepare(s: string): { run(...a: unknown[]): void } } }).db
    .prepare('UPDATE states SET payload = ? WHERE jid = ? AND run_num = 0')
    .run('{"run_num":', JID);
  t.equal(sender.onRefusal({ code: 'C', message: 'm', jid: JID, refused: 'state_results' }), true);
  t.same(
    frames.flatMap((f) => (f.results as StateResultItem[]).map((r) => r.run_num)),
    [1],
  );
  const q = quarantined();
  t.equal(q[0]!.kind, 'state_results');
  t.equal(q[0]!.items.length, 1, 'the garbled row goes to quarantine');
  t.match(q[0]!.reason, /^spooled state result 0 is /);
  t.equal(spool.stateSize(), 1, 'and out of the spool');
});

t.test('resendAll: a garbled return is quarantined with its reason', async (t) => {
  const { sender, spool, frames, quarantined } = setup(t);
  spool.put(ret());
  (spool as unknown as { db: { prepare(s: string): { run(...a: unknown[]): void } } }).db
    .prepare('UPDATE spool SET payload = ? WHERE jid = ?')
    .run('{"jid":', JID);
  t.same(sender.resendAll(), { states: 0, rets: 0 });
  t.equal(frames.length, 0);
  t.match(quarantined()[0]!.reason, /^the spooled return is /);
});
