/** Arguments read as salt-call reads them: a plain name skips the YAML parser and reads the same. */
import t from 'tap';
import { parse } from 'yaml';
import { yamlifyArg } from '../src/salt-args.js';

/** What every word went through before: the yaml library, with salt-call's adjustments. */
function throughYaml(text: string): unknown {
  if (text === '') return '';
  try {
    const v = parse(text, { version: '1.1' }) as unknown;
    if (typeof v === 'number' && !Number.isSafeInteger(v) && /^\d+$/.test(text.trim())) return text;
    if (v === null && !/^(~|null|None)$/i.test(text)) return text;
    if (v === null && text === 'None') return null;
    return v;
  } catch {
    return text;
  }
}

const words = [
  'a',
  'a,b',
  'apache.config',
  'web/init',
  'x-y_z',
  'None',
  'y',
  'n',
  'Y',
  'yes',
  'No',
  'on',
  'OFF',
  'true',
  'False',
  'null',
  'NULL',
  'Null',
  'nan',
  'inf',
  '_',
  'a1',
  'e3',
  'E',
  'e-3',
  'E12',
  'e3x',
  'b.2',
  'a,',
  'a,,b',
  'a/b/c.sls',
];
for (const w of words) t.same(yamlifyArg(w), throughYaml(w), w);
t.same(yamlifyArg('80'), 80);
t.same(yamlifyArg('{"a": 1}'), { a: 1 });
