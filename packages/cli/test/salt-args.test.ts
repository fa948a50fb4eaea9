/** Arguments read as salt-call reads them: a plain name skips the YAML parser and reads the same. */
import t from 'tap';
import { yamlifyArg, yamlifyThroughYaml } from '../src/salt-args.js';

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
for (const w of words) t.same(yamlifyArg(w), w === '' ? '' : yamlifyThroughYaml(w), w);
t.same(yamlifyArg('80'), 80);
t.same(yamlifyArg('{"a": 1}'), { a: 1 });
