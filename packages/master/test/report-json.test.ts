import t from 'tap';
import { reportJson, reportStream, returnEntryJson } from '../src/routes/report-json.js';
import { parseStoredReturn, type StoredReturn } from '../src/store.js';
import { countTurns } from './helpers/turns.js';

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
  const counted = countTurns();
  await reportJson(report(1000));
  counted.stop();
  const turns = counted.count;
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

t.test('returns spliced in as stored read exactly as the parsed ones serialised', async (t) => {
  const stored: StoredReturn[] = [
    {
      jid: 'j',
      minion: 'a',
      fun: 'state.apply',
      success: true,
      retcode: 0,
      returnJson: JSON.stringify({ 'file_|-x_|-/x_|-managed': { result: true, comment: 'é "q"\n', changes: { diff: '+1' } } }),
      started: 's',
      finished: 'f',
      stored_at: 't',
    },
    { jid: 'j', minion: 'b"\\', fun: 'test.ping', success: false, retcode: 2, returnJson: 'null', started: 's2', finished: 'f2', stored_at: 't2' },
    {
      jid: 'j',
      minion: 'c',
      fun: 'cmd.run',
      success: true,
      retcode: 0,
      returnJson: JSON.stringify(['x', 1.5, -0, { k: [] }]),
      started: 's',
      finished: 'f',
      stored_at: 't',
    },
  ];
  const body = <R>(each: (r: StoredReturn) => R) => ({
    jid: 'j',
    returns: Object.fromEntries(stored.map((r) => [r.minion, each(r)])),
    missing: [],
    done: true,
  });
  const parsed = await reportJson(
    body((r) => {
      const { jid: _j, minion: _m, ...rest } = parseStoredReturn(r);
      return rest;
    }),
  );
  t.equal(await reportJson(body(returnEntryJson)), parsed);
});
