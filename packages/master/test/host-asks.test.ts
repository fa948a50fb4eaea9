/** The master's questions to a minion's host: answered only by the session asked, or failed with a code. */
import t from 'tap';
import { HostAsks } from '../src/host-asks.js';
import type { Session } from '../src/hub.js';

function session(minion: string): Session {
  return { minion, running: new Set(), grains: {}, started: true } as unknown as Session;
}

function asks(timeoutS = 60) {
  const sent: Array<{ session: Session; id: string; jid?: string; calls: unknown[] }> = [];
  const open = new Set<Session>();
  const h = new HostAsks((s, msg) => {
    if (!open.has(s)) return false;
    sent.push({ session: s, ...msg });
    return true;
  }, timeoutS);
  return { h, sent, open };
}

const calls = [{ fun: 'cmd.has_exec', args: ['git'], kwargs: {} }];

t.test('the answer of the session asked settles the question; another session cannot answer it', async (t) => {
  const { h, sent, open } = asks();
  const a = session('a');
  const b = session('b');
  open.add(a).add(b);
  const p = h.ask(a, calls, '20250101000000000001');
  t.same(
    sent.map((m) => [m.session, m.jid, m.calls]),
    [[a, '20250101000000000001', calls]],
  );
  const ref = sent[0]!.id;
  t.equal(h.answer(b, { v: 1, type: 'host_answers', ref, answers: [{ ok: true, value: false }] }), false, 'not its question');
  t.equal(h.answer(a, { v: 1, type: 'host_answers', ref, answers: [{ ok: true, value: true }] }), true);
  t.same(await p, [{ ok: true, value: true }]);
  t.equal(h.answer(a, { v: 1, type: 'host_answers', ref, answers: [] }), false, 'answered once');
});

t.test('an error frame, a closed session, a closed socket and the timeout fail the question with a code', async (t) => {
  const { h, sent, open } = asks(0.05);
  const a = session('a');
  open.add(a);
  const refused = h.ask(a, calls);
  t.equal(h.fail(a, sent[0]!.id, 'BRINE_ERR_PROTO_BAD_FIELD', 'bad'), true);
  await t.rejects(refused, { code: 'BRINE_ERR_MASTER_HOST_REFUSED', message: /minion a refused the host calls: BRINE_ERR_PROTO_BAD_FIELD: bad/ });
  const dropped = h.ask(a, calls);
  h.drop(a);
  await t.rejects(dropped, { code: 'BRINE_ERR_MASTER_HOST_GONE' });
  open.delete(a);
  await t.rejects(h.ask(a, calls), { code: 'BRINE_ERR_MASTER_HOST_GONE', message: /minion a is not connected/ });
  open.add(a);
  // the question's timer does not hold the process open (in the master the server does)
  const server = setInterval(() => undefined, 1000);
  t.teardown(() => clearInterval(server));
  await t.rejects(h.ask(a, calls), { code: 'BRINE_ERR_MASTER_HOST_TIMEOUT', message: /did not answer the host calls within 0.05 s/ });
});
