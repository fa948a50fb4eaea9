// The requisite verdicts one by one (Salt's state.py check_requisite): what each kind of
// requisite makes of its targets' results, how kinds combine, and the comments Salt prints.
// run-low-state.test.ts sees these through whole runs; here each rule has its own case.
import t from 'tap';
import { ChunkIndex, type LowChunk, type StateResult } from '@brine/core';
import { failedComment, lookupRequisites, notFoundComment, requisiteStatus, type EvalKind, type ResolvedRequisite } from '../src/requisite-status.js';

let order = 1;
const chunk = (id: string, extra: Record<string, unknown> = {}): LowChunk => ({
  state: 'test',
  fun: 'nop',
  __id__: id,
  name: id,
  __sls__: 'main',
  __env__: 'base',
  order: order++,
  ...extra,
});

const res = (result: boolean | null, changes: Record<string, unknown> = {}, extra: Partial<StateResult> = {}): StateResult =>
  ({ result, changes, comment: '', name: 'x', __run_num__: 0, ...extra }) as StateResult;

/** The verdict for requisites given as [kind, [target chunk, its result]...]. */
function verdict(...groups: Array<[EvalKind, ...Array<[LowChunk, StateResult | undefined]>]>) {
  const results = new Map<LowChunk, StateResult | undefined>();
  const reqs: ResolvedRequisite[] = groups.map(([kind, ...targets]) => {
    for (const [c, r] of targets) results.set(c, r);
    return { kind, ref: {}, chunks: targets.map(([c]) => c) };
  });
  return requisiteStatus(reqs, (_k, c) => results.get(c));
}

const ok = () => [chunk('ok'), res(true)] as [LowChunk, StateResult];
const changed = () => [chunk('changed'), res(true, { a: 1 })] as [LowChunk, StateResult];
const failed = (id = 'bad') => [chunk(id), res(false)] as [LowChunk, StateResult];
const wouldChange = () => [chunk('would'), res(null)] as [LowChunk, StateResult];
const notRun = () => [chunk('skipped'), res(true, {}, { __state_ran__: false } as Partial<StateResult>)] as [LowChunk, StateResult];

t.test('no requisites, or targets without results: met', async (t) => {
  t.same(
    requisiteStatus([], () => undefined),
    { status: 'met' },
  );
  t.same(verdict(['require', [chunk('x'), undefined]]), { status: 'met' });
});

t.test('require: met when all succeed, fail (naming the failed) when one fails', async (t) => {
  t.same(verdict(['require', ok(), changed()]), { status: 'met' });
  const bad = failed();
  t.same(verdict(['require', ok(), bad]), { status: 'fail', failed: [bad[0]] });
  t.same(verdict(['require', wouldChange()]), { status: 'met' }, 'a result of None is not a failure');
});

t.test('require_any: one success is enough, all failing fails', async (t) => {
  t.same(verdict(['require_any', failed(), ok()]), { status: 'met' });
  t.same(verdict(['require_any', failed(), changed()]), { status: 'met' });
  const [a, b] = [failed('a'), failed('b')];
  t.same(verdict(['require_any', a, b]), { status: 'fail', failed: [a[0], b[0]] });
});

t.test('require_any: a target that did not run is no success', async (t) => {
  const bad = failed();
  t.same(verdict(['require_any', bad, notRun()]), { status: 'fail', failed: [bad[0]] });
});

t.test('each kind is judged on its own: a failed require stays failed beside a met require_any', async (t) => {
  const bad = failed();
  t.same(verdict(['require', bad], ['require_any', ok()]), { status: 'fail', failed: [bad[0]] });
  t.same(verdict(['require_any', bad, ok()], ['require', ok()]), { status: 'met' });
  t.same(verdict(['require_any', ok()], ['require', bad]), { status: 'fail', failed: [bad[0]] });
});

t.test('a target failing under two kinds is named once', async (t) => {
  const bad = failed();
  t.same(verdict(['require', bad], ['watch', bad]), { status: 'fail', failed: [bad[0]] });
});

t.test('watch: changes make a change, none a met, a failure fails', async (t) => {
  t.same(verdict(['watch', changed()]), { status: 'change' });
  t.same(verdict(['watch', ok()]), { status: 'met' });
  t.equal(verdict(['watch', failed()]).status, 'fail');
  t.same(verdict(['watch_any', failed(), changed()]), { status: 'change' });
  t.same(verdict(['watch_any', failed(), ok()]), { status: 'met' });
  t.same(verdict(['require', changed()]), { status: 'met' }, 'require does not care for changes');
});

t.test('onchanges: runs only when a target changed', async (t) => {
  t.same(verdict(['onchanges', ok()]), { status: 'onchanges' });
  t.same(verdict(['onchanges', changed()]), { status: 'met' });
  t.same(verdict(['onchanges', ok(), changed()]), { status: 'met' }, 'one change among several is enough');
  t.same(verdict(['onchanges_any', ok(), changed()]), { status: 'met' });
  t.same(verdict(['onchanges_any', ok()]), { status: 'onchanges' });
  t.same(verdict(['onchanges', [chunk('nul'), res(true, null as unknown as Record<string, unknown>)]]), { status: 'onchanges' }, 'null changes are none');
  t.equal(verdict(['onchanges', failed()]).status, 'fail', 'a failed target fails');
  t.same(verdict(['onchanges_any', failed(), changed()]), { status: 'met' }, 'onchanges_any: a changed target outweighs a failed one');
});

t.test('onfail: runs when a target failed, not when all succeeded', async (t) => {
  t.same(verdict(['onfail', ok()]), { status: 'onfail' });
  t.same(verdict(['onfail', failed()]), { status: 'met' }, 'a failed onfail target is no failure of the state');
  t.same(verdict(['onfail', wouldChange()]), { status: 'met' }, 'result None (test mode) lets it run');
  t.same(verdict(['onfail', failed(), ok()]), { status: 'met' }, 'plain onfail: one failure is enough');
  t.same(verdict(['onfail_any', failed(), ok()]), { status: 'met' });
  t.same(verdict(['onfail_all', failed(), ok()]), { status: 'onfail' }, 'onfail_all: one success keeps it from running');
  t.same(verdict(['onfail_all', failed('a'), failed('b')]), { status: 'met' });
  t.same(verdict(['onfail_all', ok()]), { status: 'onfail' });
});

t.test('prereq: runs before a target that would change; skipped when it would not', async (t) => {
  t.same(verdict(['prereq', wouldChange()]), { status: 'met' });
  t.same(verdict(['prereq', ok()]), { status: 'pre' });
  t.same(verdict(['prereq', ok(), wouldChange()]), { status: 'met' }, 'one target that would change is enough');
  t.equal(verdict(['prereq', failed()]).status, 'fail');
});

t.test('listen requisites are left to the end of the run', async (t) => {
  t.same(verdict(['listen', failed()]), { status: 'met' });
  const bad = failed();
  t.same(verdict(['listen', ok()], ['require', bad]), { status: 'fail', failed: [bad[0]] });
});

t.test('precedence: failure, prereq, onfail, onchanges, watch', async (t) => {
  t.equal(verdict(['prereq', ok()], ['require', failed()]).status, 'fail');
  t.same(verdict(['prereq', ok()], ['onfail', ok()]), { status: 'pre' });
  t.same(verdict(['onfail', ok()], ['onchanges', ok()]), { status: 'onfail' });
  t.same(verdict(['onchanges', ok()], ['watch', changed()]), { status: 'onchanges' });
  t.same(verdict(['onchanges', changed()], ['watch', changed()]), { status: 'change' });
  t.same(verdict(['onfail', ok()], ['onchanges', changed()]), { status: 'onfail' }, 'a met onchanges does not outweigh a succeeded onfail target');
  t.same(verdict(['onfail', ok()], ['onchanges', changed()], ['watch', changed()]), { status: 'change' }, 'Salt: a change then wins');
  t.same(verdict(['onfail', ok()], ['watch', changed()]), { status: 'onfail' });
  t.same(verdict(['prereq', ok(), wouldChange()], ['onfail', ok()]), { status: 'onfail' });
});

t.test('failedComment: declaration order, each sls.id once', async (t) => {
  t.equal(failedComment([chunk('z'), chunk('a'), chunk('z')]), 'One or more requisite failed: main.z, main.a');
  t.equal(failedComment([chunk('one', { __sls__: 'web' })]), 'One or more requisite failed: web.one');
});

t.test('notFoundComment: Salt layout, kinds in order of finding', async (t) => {
  t.equal(
    notFoundComment(
      new Map([
        ['require', ['test: nope', 'id: gone']],
        ['watch', ['cmd: x']],
      ]),
    ),
    'The following requisites were not found:\n' +
      '                   require:\n                       test: nope\n                       id: gone\n' +
      '                   watch:\n                       cmd: x\n',
  );
});

t.test('lookupRequisites: targets found, lost ones listed by kind, listen lost only by module', async (t) => {
  const a = chunk('a');
  const b = chunk('b', { state: 'cmd', fun: 'run' });
  const me = chunk('me', {
    require: [{ test: 'a' }, { test: 'nope' }, { id: 'gone' }],
    watch: [{ cmd: 'b' }, { cmd: 'lost' }],
    listen: [{ id: 'nothing' }, { cmd: 'away' }],
  });
  const look = lookupRequisites(new ChunkIndex([a, b, me]), me, false);
  t.same(
    look.reqs.map((r) => [r.kind, r.chunks.map((c) => c.__id__)]),
    [
      ['require', ['a']],
      ['watch', ['b']],
    ],
  );
  t.same(
    [...look.lost],
    [
      ['require', ['test: nope', 'id: gone']],
      ['watch', ['cmd: lost']],
    ],
  );
  t.same(look.listenLost, [{ kind: 'cmd', value: 'away' }], 'a bare id that names nothing is skipped quietly');
});

t.test('lookupRequisites: no listen lost is an empty list; an unparsable reference is shown as JSON', async (t) => {
  const me = chunk('me', { require: [42] });
  const look = lookupRequisites(new ChunkIndex([me]), me, false);
  t.same(look.listenLost, []);
  t.same([...look.lost], [['require', ['42']]]);
});

t.test('lookupRequisites: prerequired is ignored in a prereq dry run; a prereq on itself is left out', async (t) => {
  const a = chunk('a');
  const me = chunk('me', { prerequired: [{ test: 'a' }], prereq: [{ sls: 'main' }], require: [{ sls: 'main' }] });
  const index = new ChunkIndex([a, me]);
  t.same(
    lookupRequisites(index, me, false).reqs.map((r) => [r.kind, r.chunks.map((c) => c.__id__)]),
    [
      ['require', ['a', 'me']],
      ['prereq', ['a']],
      ['prerequired', ['a']],
    ],
  );
  t.same(
    lookupRequisites(index, me, true).reqs.map((r) => r.kind),
    ['require', 'prereq'],
  );
});

t.test('onfail_any: runs when any target failed, not when all succeeded', async (t) => {
  t.same(verdict(['onfail_any', ok()]), { status: 'onfail' });
  t.same(verdict(['onfail_any', failed('a'), failed('b')]), { status: 'met' }, 'failed targets are no failure of the state');
});

t.test('lookupRequisites: a single reference (not a list) counts', async (t) => {
  const a = chunk('a');
  const me = chunk('me', { require: { test: 'a' } });
  t.same(
    lookupRequisites(new ChunkIndex([a, me]), me, false).reqs.map((r) => [r.kind, r.chunks.map((c) => c.__id__)]),
    [['require', ['a']]],
  );
});

t.test('lookupRequisites: arg_bind names a state by id and resource', async (t) => {
  const b = chunk('b', { name: 'the-name' });
  const b2 = chunk('b2', { name: 'the-name' });
  const me = chunk('me', { arg_bind: [{ test: 'b[the-name]' }, { test: 'me' }] });
  const look = lookupRequisites(new ChunkIndex([b, b2, me]), me, false);
  t.same(
    look.reqs.map((r) => [r.kind, r.chunks.map((c) => c.__id__)]),
    [
      ['arg_bind', ['b']],
      ['arg_bind', []],
    ],
    'an arg_bind on itself is left out',
  );
  t.same([...look.lost], []);
});

t.test('lookupRequisites: listen and prerequired on itself are left out, require keeps it', async (t) => {
  const a = chunk('a');
  const me = chunk('me', { listen: [{ sls: 'main' }], prerequired: [{ sls: 'main' }], require: [{ sls: 'main' }] });
  t.same(
    lookupRequisites(new ChunkIndex([a, me]), me, false).reqs.map((r) => [r.kind, r.chunks.map((c) => c.__id__)]),
    [
      ['require', ['a', 'me']],
      ['prerequired', ['a']],
      ['listen', ['a']],
    ],
  );
});
