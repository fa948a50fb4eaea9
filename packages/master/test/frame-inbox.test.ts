import { setImmediate as nextTurn } from 'node:timers/promises';
import t from 'tap';
import { FrameInbox } from '../src/frame-inbox.js';

t.test('a burst of frames read in one turn is handled over several turns, in order', async (t) => {
  const seen: string[] = [];
  const inbox = new FrameInbox<string>(
    (s, f) => seen.push(`${s}:${f.toString()}`),
    (s) => seen.push(`${s}:closed`),
  );
  // every turn stops after its first 16 frames: turns are counted, not timed
  inbox.turnMs = 0;
  for (let i = 0; i < 100; i++) inbox.push(`m${i % 3}`, Buffer.from(String(i)));
  inbox.close('m1');
  t.equal(seen.length, 0, 'nothing is handled while the sockets are read');
  let turns = 0;
  while (seen.length < 101) {
    await nextTurn();
    turns++;
  }
  t.ok(turns >= 6, `handled over ${turns} turns`);
  t.same(
    seen.map((x) => Number(x.split(':')[1])).slice(0, 100),
    Array.from({ length: 100 }, (_, i) => i),
    'in arrival order',
  );
  t.equal(seen[100], 'm1:closed', "a close comes after its connection's frames");
});

t.test('a connection whose frames pile up is paused until half of them are handled; others are not', async (t) => {
  const events: string[] = [];
  let handled = 0;
  const inbox = new FrameInbox<string>(
    () => handled++,
    () => {},
    { maxWaiting: 4, maxBytes: 1 << 20, pause: (s) => events.push(`pause ${s}`), resume: (s) => events.push(`resume ${s}`) },
  );
  inbox.turnMs = 0;
  for (let i = 0; i < 6; i++) inbox.push('flood', Buffer.from('x'));
  for (let i = 0; i < 3; i++) inbox.push('quiet', Buffer.from('y'));
  t.same(events, ['pause flood'], 'paused at its fourth waiting frame, once');
  while (handled < 9) await nextTurn();
  t.same(events, ['pause flood', 'resume flood'], 'resumed once, when two were left');
  // a closed connection forgets its pause: its next life starts counting afresh
  for (let i = 0; i < 4; i++) inbox.push('gone', Buffer.from('z'));
  inbox.close('gone');
  while (handled < 13) await nextTurn();
  await nextTurn();
  t.same(events, ['pause flood', 'resume flood', 'pause gone', 'resume gone'], 'handled down to half before its close');
});

t.test('while more than maxBytes wait in all, every connection that reads is paused; all resume at half', async (t) => {
  const events: string[] = [];
  const inbox = new FrameInbox<string>(
    (s) => events.push(`handle ${s}`),
    () => {},
    { maxWaiting: 100, maxBytes: 10, pause: (s) => events.push(`pause ${s}`), resume: (s) => events.push(`resume ${s}`) },
  );
  inbox.push('a', Buffer.alloc(6));
  inbox.push('b', Buffer.alloc(6));
  t.same(events, ['pause b'], 'the read that passed the bound is held back');
  inbox.push('c', Buffer.alloc(1));
  t.same(events, ['pause b', 'pause c'], 'and every read after it');
  while (events.length < 7) await nextTurn();
  // after a, 7 bytes wait (more than half of 10): nobody resumes until b is taken
  t.same(events, ['pause b', 'pause c', 'handle a', 'resume b', 'resume c', 'handle b', 'handle c']);
});
