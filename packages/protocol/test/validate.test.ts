import t from 'tap';
import { encode, parseFrame, PROTOCOL_VERSION } from '../src/index.js';

t.test('a valid frame round-trips', async (t) => {
  const r = parseFrame(encode({ type: 'hello', minion: 'web1', pub: 'PEM', version: '0.1.0', id: 'a' }));
  t.ok(r.ok);
  if (r.ok) {
    t.equal(r.msg.type, 'hello');
    t.equal(r.msg.v, PROTOCOL_VERSION);
  }
});

t.test('bad frames become coded errors, never exceptions', async (t) => {
  const cases: Array<[string | Buffer, string]> = [
    ['{not json', 'BRINE_ERR_PROTO_BAD_JSON'],
    ['[1,2]', 'BRINE_ERR_PROTO_NOT_OBJECT'],
    ['null', 'BRINE_ERR_PROTO_NOT_OBJECT'],
    [JSON.stringify({ v: 99, type: 'ping' }), 'BRINE_ERR_PROTO_BAD_VERSION'],
    [JSON.stringify({ type: 'ping' }), 'BRINE_ERR_PROTO_BAD_VERSION'],
    [JSON.stringify({ v: 1, type: 'explode' }), 'BRINE_ERR_PROTO_UNKNOWN_TYPE'],
    [JSON.stringify({ v: 1, type: '__proto__' }), 'BRINE_ERR_PROTO_UNKNOWN_TYPE'],
    [JSON.stringify({ v: 1, type: 'hello', minion: 'a', version: '1' }), 'BRINE_ERR_PROTO_BAD_FIELD'],
    [JSON.stringify({ v: 1, type: 'hello', minion: '../etc', pub: 'x', version: '1' }), 'BRINE_ERR_PROTO_BAD_FIELD'],
    [JSON.stringify({ v: 1, type: 'ret', jid: 'nope', fun: 'a', success: true, retcode: 0, started: '', finished: '' }), 'BRINE_ERR_PROTO_BAD_FIELD'],
    [
      JSON.stringify({ v: 1, type: 'ret', jid: '20250101000000000000', fun: 'a', success: 'yes', retcode: 0, started: '', finished: '' }),
      'BRINE_ERR_PROTO_BAD_FIELD',
    ],
    [JSON.stringify({ v: 1, type: 'ping', id: 5 }), 'BRINE_ERR_PROTO_BAD_FIELD'],
    ['x'.repeat(2000), 'BRINE_ERR_PROTO_FRAME_TOO_LARGE'],
  ];
  for (const [raw, code] of cases) {
    const r = parseFrame(raw, 1000);
    t.notOk(r.ok, String(raw).slice(0, 60));
    if (!r.ok) t.equal(r.error.code, code, String(raw).slice(0, 60));
  }
});

t.test('the ref of a bad frame is kept for the reply', async (t) => {
  const r = parseFrame(JSON.stringify({ v: 1, type: 'auth', id: 'req-7' }));
  t.notOk(r.ok);
  if (!r.ok) t.equal(r.ref, 'req-7');
});

t.test('requests and streamed state results are validated', async (t) => {
  const jid = '20250101000000000001';
  const good = [
    { v: 1, type: 'req', id: 'r1', op: 'state.compile', args: { mode: 'highstate' } },
    { v: 1, type: 'state_results', jid, fun: 'state.apply', results: [{ run_num: 0, tag: 'a_|-b_|-c_|-d', ret: { result: true } }] },
    { v: 1, type: 'state_ack', jid, nums: [0, 1] },
    { v: 1, type: 'res', ref: 'r1', data: null },
  ];
  for (const g of good) t.ok(parseFrame(JSON.stringify(g)).ok, g.type);
  const bad = [
    { v: 1, type: 'req', op: 'x', args: {} },
    { v: 1, type: 'req', id: 'r', op: 'x', args: [] },
    { v: 1, type: 'state_results', jid, fun: 'f', results: [{ run_num: 'x', tag: 't', ret: {} }] },
    { v: 1, type: 'state_results', jid: 'nope', fun: 'f', results: [] },
    { v: 1, type: 'state_ack', jid, nums: ['a'] },
  ];
  for (const b of bad) {
    const r = parseFrame(JSON.stringify(b));
    t.notOk(r.ok, JSON.stringify(b));
    if (!r.ok) t.equal(r.error.code, 'BRINE_ERR_PROTO_BAD_FIELD');
  }
});

t.test('host calls and their answers are validated', async (t) => {
  const jid = '20250101000000000001';
  const good = [
    { v: 1, type: 'host_calls', id: 'h1', jid, calls: [{ fun: 'cmd.has_exec', args: ['git'], kwargs: {} }] },
    { v: 1, type: 'host_calls', id: 'h2', calls: [] },
    {
      v: 1,
      type: 'host_answers',
      ref: 'h1',
      answers: [
        { ok: true, value: null },
        { ok: false, code: 'BRINE_ERR_X', message: 'no' },
      ],
    },
  ];
  for (const g of good) t.ok(parseFrame(JSON.stringify(g)).ok, JSON.stringify(g));
  const bad: Array<[unknown, string]> = [
    [{ v: 1, type: 'host_calls', calls: [] }, 'id'],
    [{ v: 1, type: 'host_calls', id: 'h', jid: 'x', calls: [] }, 'jid'],
    [{ v: 1, type: 'host_calls', id: 'h', calls: [{ fun: '', args: [], kwargs: {} }] }, 'calls[0]'],
    [{ v: 1, type: 'host_calls', id: 'h', calls: [{ fun: 'a.b', args: {}, kwargs: {} }] }, 'calls[0]'],
    [{ v: 1, type: 'host_calls', id: 'h', calls: [{ fun: 'a.b', args: [] }] }, 'calls[0]'],
    [{ v: 1, type: 'host_answers', ref: 'h', answers: [{ ok: true }] }, 'answers[0]'],
    [{ v: 1, type: 'host_answers', ref: 'h', answers: [{ value: 1 }] }, 'answers[0]'],
    [
      {
        v: 1,
        type: 'host_answers',
        ref: 'h',
        answers: [
          { ok: true, value: 1 },
          { ok: false, message: 'm' },
        ],
      },
      'answers[1]',
    ],
    [{ v: 1, type: 'host_answers', answers: [] }, 'ref'],
  ];
  for (const [b, field] of bad) {
    const r = parseFrame(JSON.stringify(b));
    t.notOk(r.ok, JSON.stringify(b));
    if (!r.ok) {
      t.equal(r.error.code, 'BRINE_ERR_PROTO_BAD_FIELD');
      t.match(r.error.message, field);
    }
  }
});

/** `{a: {a: ... {a: 1}}}` nested `depth` levels deep, written out as JSON text (no recursion). */
function deepJson(depth: number): string {
  return '{"a":'.repeat(depth) + '1' + '}'.repeat(depth);
}

t.test('free-form data from a minion is bounded in depth and size', async (t) => {
  const jid = '20250101000000000001';
  const grains = (g: string) => `{"v":1,"type":"grains","running":[],"grains":${g}}`;
  // the attack of issue 20: grains nested ~4,500 deep in 27 KB
  const deep: Array<[string, string, RegExp]> = [
    [grains(deepJson(4500)), 'BRINE_ERR_PROTO_TOO_DEEP', /'grains' is nested more than 64 levels deep/],
    [grains(`{"os":"Debian","x":${deepJson(64)}}`), 'BRINE_ERR_PROTO_TOO_DEEP', /more than 64/],
    [grains(`{"big":"${'x'.repeat(300 * 1024)}"}`), 'BRINE_ERR_PROTO_FIELD_TOO_LARGE', /'grains' holds about \d+ bytes of JSON, more than the limit of 262144/],
    [`{"v":1,"type":"req","id":"r","op":"state.compile","args":{"pillar":${deepJson(100)}}}`, 'BRINE_ERR_PROTO_TOO_DEEP', /'args'/],
    [`{"v":1,"type":"host_answers","ref":"h","answers":[{"ok":true,"value":${deepJson(100)}}]}`, 'BRINE_ERR_PROTO_TOO_DEEP', /'answers\[0\]'/],
    [
      `{"v":1,"type":"ret","jid":"${jid}","fun":"f","success":true,"retcode":0,"started":"","finished":"","return":${deepJson(5000)}}`,
      'BRINE_ERR_PROTO_TOO_DEEP',
      /'return' .* 512/,
    ],
    [
      `{"v":1,"type":"state_results","jid":"${jid}","fun":"f","results":[{"run_num":0,"tag":"t","ret":{"changes":${deepJson(5000)}}}]}`,
      'BRINE_ERR_PROTO_TOO_DEEP',
      /'results\[0\]'/,
    ],
  ];
  for (const [raw, code, message] of deep) {
    const r = parseFrame(raw);
    t.notOk(r.ok, raw.slice(0, 60));
    if (!r.ok) t.match(r.error, { code, message }, raw.slice(0, 60));
  }
  // what real minions send passes: ordinary nesting, a return a few hundred levels deep
  t.ok(parseFrame(grains(`{"os":"Debian","ip4_interfaces":{"lo":["127.0.0.1"]},"x":${deepJson(60)}}`)).ok);
  t.ok(parseFrame(`{"v":1,"type":"ret","jid":"${jid}","fun":"f","success":true,"retcode":0,"started":"","finished":"","return":${deepJson(400)}}`).ok);
});

t.test("the master's busy refusal and the welcome's reconnect window are validated", async (t) => {
  const busy = parseFrame(encode({ type: 'busy', retry_after: 3 }));
  t.ok(busy.ok && busy.msg.type === 'busy' && busy.msg.retry_after === 3, 'busy with a window');
  const noWindow = parseFrame('{"v":1,"type":"busy"}');
  t.match(noWindow, { ok: false, error: { code: 'BRINE_ERR_PROTO_BAD_FIELD', message: /retry_after/ } });
  t.match(parseFrame('{"v":1,"type":"busy","retry_after":"soon"}'), { ok: false, error: { code: 'BRINE_ERR_PROTO_BAD_FIELD' } });
  const booked = parseFrame(encode({ type: 'busy', retry_after: 4.5, retry_from: 3.5 }));
  t.ok(booked.ok && booked.msg.type === 'busy' && booked.msg.retry_from === 3.5, 'busy with a booked window (from, to)');
  t.match(parseFrame('{"v":1,"type":"busy","retry_after":4,"retry_from":"later"}'), {
    ok: false,
    error: { code: 'BRINE_ERR_PROTO_BAD_FIELD', message: /retry_from/ },
  });
  t.ok(parseFrame(encode({ type: 'welcome', minion: 'm', reconnect_window: 12.5 })).ok, 'a welcome with a window');
  t.match(parseFrame('{"v":1,"type":"welcome","minion":"m","reconnect_window":"x"}'), { ok: false, error: { code: 'BRINE_ERR_PROTO_BAD_FIELD' } });
});
