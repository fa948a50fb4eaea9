// ChunkIndex against a plain scan of the low state: the order and the chunks each reference
// names (the runtime's requisite evaluation and verify's checks read the same answers).
import t from 'tap';
import { ChunkIndex, globToRegExp, isGlob, type LowChunk, type RequisiteTarget } from '../src/index.js';

const chunk = (state: string, id: string, name: string, sls: string, from?: string[]): LowChunk => ({
  state,
  fun: 'f',
  __id__: id,
  name,
  __sls__: sls,
  __env__: 'base',
  ...(from ? { __sls_included_from__: from } : {}),
});

/** What a reference names, read off the list in order: the module's chunks by ID, then by name. */
function scan(chunks: LowChunk[], { kind, value }: RequisiteTarget): LowChunk[] {
  const is = (s: unknown) => (isGlob(value) ? globToRegExp(value).test(String(s)) : String(s) === value);
  if (kind === 'sls') return chunks.filter((c) => is(c.__sls__) || (c.__sls__ !== value && (c.__sls_included_from__?.includes(value) ?? false)));
  if (kind === 'id' || kind === '*') return chunks.filter((c) => is(c.__id__));
  if (isGlob(value)) return chunks.filter((c) => c.state === kind && (is(c.__id__) || is(c.name)));
  const byId = chunks.filter((c) => c.state === kind && is(c.__id__));
  return [...byId, ...chunks.filter((c) => c.state === kind && is(c.name) && !byId.includes(c))];
}

const low = [
  chunk('pkg', 'nginx', 'nginx', 'web'),
  chunk('service', 'nginx', 'nginx', 'web'),
  chunk('file', 'conf', '/etc/nginx.conf', 'web.conf', ['web']),
  chunk('file', 'nginx', '/etc/nginx', 'web'),
  chunk('file', 'other', 'nginx', 'web.conf', ['web']),
  chunk('pkg', 'tools', 'nginx', 'base'),
  chunk('pkg', 'nginx', 'nginx-extras', 'base'),
  chunk('cmd', 'a b', 'a b', 'x.y'),
];
const index = new ChunkIndex(low);

t.test('exact references: ID first, then name; other modules left out', async (t) => {
  for (const [kind, value] of [
    ['pkg', 'nginx'],
    ['file', 'nginx'],
    ['file', '/etc/nginx.conf'],
    ['service', 'nginx'],
    ['pkg', 'nginx-extras'],
    ['cmd', 'a b'],
    ['id', 'nginx'],
    ['*', 'conf'],
    ['sls', 'web'],
    ['sls', 'web.conf'],
    ['sls', 'nothing'],
    ['pkg', 'missing'],
    ['user', 'nginx'],
  ] as const) {
    const target = { kind, value };
    t.same(
      index.resolve(target).map((c) => `${c.state}.${c.__id__}`),
      scan(low, target).map((c) => `${c.state}.${c.__id__}`),
      `${kind}: ${value}`,
    );
  }
});

t.test('glob references, asked twice, answer the same', async (t) => {
  for (const [kind, value] of [
    ['pkg', 'ngin*'],
    ['file', '/etc/*'],
    ['id', 'n?inx'],
    ['sls', 'web*'],
    ['sls', 'x.*'],
  ] as const) {
    const want = scan(low, { kind, value }).map((c) => `${c.state}.${c.__id__}`);
    t.same(
      index.resolve({ kind, value }).map((c) => `${c.state}.${c.__id__}`),
      want,
      `${kind}: ${value}`,
    );
    t.same(
      index.resolve({ kind, value }).map((c) => `${c.state}.${c.__id__}`),
      want,
      `${kind}: ${value} again`,
    );
  }
});

t.test('arg_bind references read the ID, and the name when given', async (t) => {
  t.same(
    index.resolveArgBind('pkg', 'nginx').map((c) => c.name),
    ['nginx', 'nginx-extras'],
  );
  t.same(
    index.resolveArgBind('pkg', 'nginx', 'nginx-extras').map((c) => c.__sls__),
    ['base'],
  );
  t.same(index.resolveArgBind('pkg', 'tools', 'nginx').length, 1);
  t.same(index.resolveArgBind('file', 'other', 'nope'), []);
});
