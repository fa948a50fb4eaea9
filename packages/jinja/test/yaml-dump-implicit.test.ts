/**
 * The dumper quotes a string that one of PyYAML's implicit resolvers would read as another type;
 * resolvesImplicitly tests only the patterns a string's first character and length leave
 * possible, and must answer as all seven patterns do.
 */
import t from 'tap';
import { analyzeAsciiText, analyzeChars, IMPLICIT, resolvesImplicitly } from '../src/py-yaml-scalar.js';

const seeds = [
  '',
  'yes',
  'Yes',
  'YES',
  'yES',
  'no',
  'No',
  'on',
  'On',
  'ON',
  'off',
  'Off',
  'true',
  'True',
  'false',
  'FALSE',
  'y',
  'n',
  'o',
  'null',
  'Null',
  'NULL',
  'nulls',
  'none',
];
const more = [
  '~',
  '<<',
  '<',
  '=',
  '==',
  '1',
  '-1',
  '+1',
  '0',
  '00',
  '007',
  '08',
  '0b101',
  '0x1F',
  '0x',
  '1_000',
  '1.5',
  '1.',
  '.5',
  '-.5',
  '1e3',
  '1.0e+3',
  '1.0e3',
  '.inf',
  '-.Inf',
  '+.INF',
  '.nan',
  '.NaN',
  '190:20:30',
  '190:20:30.15',
  '-1:30',
  '2026-11-28',
  '2026-1-2 3:04:05',
  '2026-11-28T03:25:00.5Z',
  '2026-11-28 03:25:00 +01:00',
  '1.2.3',
  '10.0.0.1',
  '-',
  '+',
  '.',
  '..',
  '...',
  '---',
  'openssh',
  'ntp',
  'fd00::1',
  '/etc/ssh',
  'off ',
  ' off',
  'offf',
  'truex',
  'tRUE',
];

t.test('resolvesImplicitly answers as the seven patterns', async (t) => {
  const texts = [...seeds, ...more];
  // every short text over the characters that start or end a pattern
  const alphabet = ['y', 'e', 's', 'n', 'o', 'f', 'O', 'N', 'u', 'l', '0', '1', '9', '.', '-', '+', ':', '_', 'x', 'b', '~', '<', '=', 'T', 'Z', ' '];
  for (const a of alphabet) for (const b of alphabet) for (const c of ['', ...alphabet]) texts.push(a + b + c);
  let differ = 0;
  for (const s of texts) {
    if (resolvesImplicitly(s) !== IMPLICIT.some((re) => re.test(s))) {
      differ++;
      t.fail(JSON.stringify(s));
    }
  }
  t.equal(differ, 0, `${texts.length} texts`);
});

t.test('analyzeAsciiText gives analyzeChars’ flags for ASCII text', async (t) => {
  let seed = 5;
  const rnd = (n: number) => ((seed = (seed * 1103515245 + 12345) % 2147483648), Math.floor(seed / 65536) % n);
  // the characters the analysis looks at, often; any other ASCII code now and then
  const common = ' \n#:-?,[]{}&*!|>\'"%@`.ab\t\r\0';
  const pick = () => (rnd(8) === 0 ? String.fromCharCode(rnd(128)) : common[rnd(common.length)]!);
  let differ = 0;
  for (let i = 0; i < 50000; i++) {
    const s = Array.from({ length: 1 + rnd(6) }, pick).join('');
    const want = analyzeChars(s, true);
    if (JSON.stringify(analyzeAsciiText(s)) !== JSON.stringify(want) || JSON.stringify(analyzeChars(s, false)) !== JSON.stringify(want)) {
      differ++;
      if (differ < 5) t.fail(JSON.stringify(s));
    }
  }
  for (const s of ['---', '--- a', '...', '... x', '-', '- a', '?', '? x', ':', 'a:', 'a: b', 'a #b', 'a#b', ' a', 'a ', 'a\n', '\na', 'a \nb', 'a\n b']) {
    if (JSON.stringify(analyzeAsciiText(s)) !== JSON.stringify(analyzeChars(s, true))) t.fail(JSON.stringify(s));
  }
  t.equal(differ, 0);
});
