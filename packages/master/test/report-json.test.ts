import t from 'tap';
import { reportJson, reportStream } from '../src/routes/report-json.js';

const report = (n: number) => ({
  jid: '20261127123456789012',
  job: { fun: 'state.apply', arg: [], expected: ['a'] },
  returns: Object.fromEntries(
    Array.from({ length: n }, (_, i) => [`m${i}`, { success: true, retcode: 0, return: { [`s${i}`]: { result: true, comment: 'é "q"' } } }]),
  ),
  missing: [{ minion: 'gone', reason: 'no response' }],
  done: true,
});

t.test('the text is the report, whatever its size', async (t) => {
  for (const n of [0, 1, 450]) {
    const r = report(n);
    t.same(JSON.parse(await reportJson(r)), r, `${n} returns`);
  }
  t.same(JSON.parse(await reportJson({ returns: { a: 1 } })), { returns: { a: 1 } }, 'nothing but returns');
});

t.test('a large report gives the event loop turns while it is made', async (t) => {
  let turns = 0;
  let more = true;
  const tick = () => {
    turns++;
    if (more) setImmediate(tick);
  };
  setImmediate(tick);
  await reportJson(report(1000));
  more = false;
  t.ok(turns >= 4, `other work ran ${turns} times while 1,000 returns were serialised`);
});

t.test('the stream a reply sends carries the same text, in pieces', async (t) => {
  const r = report(450);
  let pieces = 0;
  let text = '';
  for await (const piece of reportStream(r)) {
    pieces++;
    text += String(piece);
  }
  t.ok(pieces > 2, `${pieces} pieces`);
  t.same(JSON.parse(text), r);
});
