/**
 * The fast path tells a key line and a document marker by looking characters up (every line of a
 * large tree comes there): whatever it takes, it reads as the full parser does, for every ASCII
 * character first, after a `-`, and after `--` / `..`, at the root and indented.
 */
import t, { type Test } from 'tap';
import { fastYaml } from '../src/yaml-fast.js';
import { loadYaml } from '../src/yaml-load.js';

function agrees(t: Test, text: string): void {
  const fast = fastYaml(text);
  if (fast === undefined) return;
  const full = loadYaml(text, { fast: false });
  t.equal(full.error, undefined, `full parser accepts what the fast path took: ${JSON.stringify(text)}`);
  t.same(fast.value, full.value, JSON.stringify(text));
}

const chars = [...Array.from({ length: 127 }, (_, i) => String.fromCharCode(i + 1)), '\u00e9', '\u00a0', '\u3000'];

t.test('a key line starting with any character', async (t) => {
  for (const c of chars) {
    if (c === '\n' || c === '\r') continue;
    agrees(t, `${c}key: 1\nb: 2\n`);
    agrees(t, `a:\n  ${c}key: 1\n`);
    agrees(t, `-${c}key: 1\nb: 2\n`);
    agrees(t, `a:\n  - ${c}key: 1\n  - -${c}x: 2\n`);
  }
});

t.test('marker-like lines: `--`, `..` and `%` followed by any character', async (t) => {
  for (const c of chars) {
    if (c === '\n' || c === '\r') continue;
    for (const m of ['--', '..', '%', '-', '.']) {
      agrees(t, `${m}${c}\na: 1\n`);
      agrees(t, `a: 1\n${m}${c}\n`);
      agrees(t, `a: |\n  ${m}${c}\nb: 1\n`);
      agrees(t, `a:\n  - x\n  ${m}${c} y\n`);
    }
  }
});

t.test('the fast path still takes a state file and its document start', async (t) => {
  const text = '---\ns_1:\n  test.nop:\n    - require:\n      - test: s_0\n...\n# end\n';
  t.ok(fastYaml(text));
  agrees(t, text);
});
