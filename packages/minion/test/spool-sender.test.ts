import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import t, { type Test } from 'tap';
import { createLogger } from '@brine/core';
import { ResultSpool } from '../src/spool.js';
import { SPOOL_MAX_REFUSALS, SpoolSender } from '../src/spool-sender.js';

const JID = '20250101000000000001';
const FRAME = 64 * 1024;

function setup(t: Test) {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'brine-sender-'));
  const spool = new ResultSpool(path.join(dir, 'spool.db'));
  t.teardown(() => {
    spool.close();
    rmSync(dir, { recursive: true, force: true });
  });
  const frames: Array<Record<string, unknown> & { bytes: number }> = [];
  const events: unknown[][] = [];
  const sender = new SpoolSender({
    spool,
    log: createLogger({ level: 'silent' }),
    sendFrame: (text) => {
      frames.push({ ...(JSON.parse(text) as Record<string, unknown>), bytes: Buffer.byteLength(text) });
      return true;
    },
    connected: () => true,
    limits: () => ({ frame: FRAME, event: FRAME - 4096 }),
    emit: (...args) => events.push(args),
  });
  return { dir, spool, sender, frames, events };
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

t.test('a spooled return the protocol refuses is quarantined, not resent', async (t) => {
  const { dir, spool, sender, frames, events } = setup(t);
  spool.put(ret({ retcode: 'zero' }));
  sender.resendAll();
  t.equal(frames.length, 0, 'nothing sent');
  t.equal(spool.size(), 0, 'out of the spool');
  const files = readdirSync(path.join(dir, 'spool-quarantine'));
  t.equal(files.length, 1);
  t.match(readFileSync(path.join(dir, 'spool-quarantine', files[0]!), 'utf8'), /zero/);
  t.same(events, [['quarantined', JID, 'ret']]);
});

t.test('an oversized spooled return is trimmed to fit and sent', async (t) => {
  const { spool, sender, frames } = setup(t);
  spool.put(ret({ return: 'x'.repeat(6_000_000) }));
  sender.resendAll();
  t.equal(frames.length, 1);
  t.ok(frames[0]!.bytes <= FRAME, `${frames[0]!.bytes} bytes`);
  t.match(frames[0]!.return, /trimmed/);
  t.ok((spool.pending()[0]!.return as string).length < FRAME, 'the spool keeps the trimmed return');
});

t.test('state results go in frames batched by bytes', async (t) => {
  const { sender, frames } = setup(t);
  const items = Array.from({ length: 400 }, (_, i) => ({
    run_num: i,
    tag: `test_|-s${i}_|-s${i}_|-nop`,
    ret: { result: true, comment: 'c'.repeat(500), changes: {} },
  }));
  items.push({ run_num: 400, tag: 'cmd_|-x_|-x_|-run', ret: { result: true, comment: 'ran', changes: { stdout: 'o'.repeat(200_000) } } });
  sender.streamStates(JID, 'state.apply', items);
  t.ok(frames.length > 3, `${frames.length} frames`);
  for (const f of frames) t.ok(f.bytes <= FRAME, `frame of ${f.bytes} bytes`);
  const sent = frames.flatMap((f) => f.results as Array<{ run_num: number; ret: { changes: { stdout?: string } } }>);
  t.equal(sent.length, 401);
  t.match(sent[400]!.ret.changes.stdout, /^o+\n\.\.\. \[\d+ bytes trimmed/);
});

t.test('refusals by the master resend smaller, then quarantine', async (t) => {
  const { dir, spool, sender, frames } = setup(t);
  spool.putStates(JID, 'state.apply', [{ run_num: 0, tag: 't_|-a_|-a_|-f', ret: { result: true, comment: 'c', changes: { out: 'y'.repeat(40_000) } } }]);
  const refusal = { code: 'BRINE_ERR_PROTO_FRAME_TOO_LARGE', message: 'too large', jid: JID, refused: 'state_results' as const, limit: FRAME };
  for (let n = 1; n < SPOOL_MAX_REFUSALS; n++) {
    t.ok(sender.onRefusal(refusal));
    t.equal(frames.length, n, `refusal ${n}: sent again`);
  }
  t.ok(frames[1]!.bytes < frames[0]!.bytes, 'each time smaller');
  t.ok(sender.onRefusal(refusal));
  t.equal(frames.length, SPOOL_MAX_REFUSALS - 1, 'not sent again');
  t.equal(spool.stateSize(), 0, 'quarantined');
  t.ok(existsSync(path.join(dir, 'spool-quarantine')));
  t.notOk(sender.onRefusal({ code: 'X', message: 'm' }), 'an error about nothing spooled is not a refusal');
});

t.test('a garbled row is quarantined', async (t) => {
  const { dir, spool, sender } = setup(t);
  spool.put(ret());
  (spool as unknown as { db: { prepare(s: string): { run(...a: unknown[]): void } } }).db
    .prepare('UPDATE spool SET payload = ? WHERE jid = ?')
    .run('{"jid":', JID);
  sender.resendAll();
  t.equal(spool.size(), 0);
  t.equal(readdirSync(path.join(dir, 'spool-quarantine')).length, 1);
});
