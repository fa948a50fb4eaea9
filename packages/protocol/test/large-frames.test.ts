import t from 'tap';
import { encode, encodeRes, parseFrame, peekResultFrame } from '../src/index.js';

t.test('an answer larger than a frame is sent in parts that each fit and join back', async (t) => {
  const data = { low: Array.from({ length: 3000 }, (_, i) => ({ name: `s${i} "quoted" \\ é 😀`, order: i })) };
  const frames = encodeRes('r1', data, 16 * 1024);
  t.ok(frames.length > 1, `${frames.length} parts`);
  let text = '';
  frames.forEach((f, i) => {
    t.ok(Buffer.byteLength(f) <= 16 * 1024, `part ${i} fits`);
    const r = parseFrame(f, 16 * 1024);
    t.ok(r.ok, `part ${i} is a valid res`);
    if (r.ok && r.msg.type === 'res') {
      t.equal(r.msg.part, i);
      t.equal(r.msg.parts, frames.length);
      text += r.msg.data as string;
    }
  });
  t.same(JSON.parse(text), data);
});

t.test('an answer that fits is one plain res', async (t) => {
  const frames = encodeRes('r2', { a: 1 }, 1024);
  t.same(frames, [encode({ type: 'res', ref: 'r2', data: { a: 1 } })]);
});

t.test('the head of a result frame names its type and jid', async (t) => {
  const jid = '20250101000000000001';
  t.same(
    peekResultFrame(Buffer.from(encode({ type: 'ret', jid, fun: 'cmd.run', success: true, retcode: 0, return: 'x'.repeat(10), started: '', finished: '' }))),
    {
      type: 'ret',
      jid,
    },
  );
  t.same(peekResultFrame(encode({ type: 'state_results', jid, fun: 'state.apply', results: [] })), { type: 'state_results', jid });
  t.equal(peekResultFrame(encode({ type: 'ping' })), undefined);
  t.equal(peekResultFrame('{"v":1,"type":"ret","jid":"nope"}'), undefined);
});

t.test('the new optional fields are validated', async (t) => {
  t.ok(parseFrame(encode({ type: 'welcome', minion: 'm', max_frame_bytes: 1024 })).ok);
  t.notOk(parseFrame(JSON.stringify({ v: 1, type: 'welcome', minion: 'm', max_frame_bytes: 'big' })).ok);
  t.notOk(parseFrame(JSON.stringify({ v: 1, type: 'res', ref: 'r', data: '', part: 0.5, parts: 2 })).ok);
  t.ok(parseFrame(encode({ type: 'error', code: 'X', message: 'm', jid: '20250101000000000001', refused: 'ret', limit: 10 })).ok);
});
