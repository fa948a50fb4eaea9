import t from 'tap';
import { answerHostCalls } from '../src/host-calls.js';
import { minionErrors } from '../src/errors.js';

t.test('host calls are answered in order with values or coded errors; an answer that does not fit the frame is an error', async (t) => {
  const order: string[] = [];
  const answers = await answerHostCalls(
    [
      { fun: 'cmd.has_exec', args: ['git'], kwargs: {} },
      { fun: 'no.such', args: [], kwargs: {} },
      { fun: 'file.read', args: ['/big'], kwargs: {} },
      { fun: 'test.nothing', args: [], kwargs: {} },
    ],
    async (c) => {
      order.push(c.fun);
      if (c.fun === 'no.such') throw minionErrors.make('BRINE_ERR_MINION_UNKNOWN_FUNCTION', { fun: c.fun });
      if (c.fun === 'file.read') return 'x'.repeat(5000);
      if (c.fun === 'test.nothing') return undefined;
      return true;
    },
    4096,
  );
  t.same(order, ['cmd.has_exec', 'no.such', 'file.read', 'test.nothing']);
  t.same(answers[0], { ok: true, value: true });
  t.same(answers[1], { ok: false, code: 'BRINE_ERR_MINION_UNKNOWN_FUNCTION', message: "'no.such' is not available." });
  t.match(answers[2], { ok: false, code: 'BRINE_ERR_MINION_HOST_ANSWER_TOO_LARGE', message: /the answer of file\.read is 50\d\d bytes/ });
  t.same(answers[3], { ok: true, value: null });
});

t.test('an answer nested deeper than the master accepts is an error naming the call', async (t) => {
  let deep: unknown = 1;
  for (let i = 0; i < 100; i++) deep = [deep];
  const answers = await answerHostCalls(
    [
      { fun: 'test.deep', args: [], kwargs: {} },
      { fun: 'test.flat', args: [], kwargs: {} },
    ],
    async (c) => (c.fun === 'test.deep' ? deep : [1]),
  );
  t.match(answers[0], { ok: false, code: 'BRINE_ERR_MINION_HOST_ANSWER_TOO_DEEP', message: /test\.deep.*64/ });
  t.same(answers[1], { ok: true, value: [1] });
});

t.test('the answers share one frame: each fits alone, together the last one does not', async (t) => {
  const calls = ['a', 'b', 'c'].map((n) => ({ fun: `file.read`, args: [`/${n}`], kwargs: {} }));
  const maxBytes = 4096;
  // each value is about 1,500 bytes: under the 3,072 left beside the envelope, but not three of them
  const answers = await answerHostCalls(calls, async () => 'x'.repeat(1500), maxBytes);
  t.same(answers[0], { ok: true, value: 'x'.repeat(1500) });
  t.same(answers[1], { ok: true, value: 'x'.repeat(1500) });
  t.match(answers[2], { ok: false, code: 'BRINE_ERR_MINION_HOST_ANSWER_TOO_LARGE', message: /file\.read/ });
  const frame = JSON.stringify({ v: 1, type: 'host_answers', ref: '0'.repeat(36), answers });
  t.ok(Buffer.byteLength(frame) <= maxBytes, 'the frame holding them fits');
});
