/**
 * The `yaml` filter's layout against PyYAML's: fixtures/pyyaml-dump.json holds values and what
 * Salt's safe_dump printed for them (flow, block and auto flow style), recorded from Salt 3007.
 * Each dump must also read back to the value with Brine's loader.
 */

import t from 'tap';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { loadYaml } from '../src/yaml-load.js';
import { toYaml } from '../src/serialize.js';

const fixture = JSON.parse(readFileSync(fileURLToPath(new URL('./fixtures/pyyaml-dump.json', import.meta.url)), 'utf8'));

for (const c of fixture.cases as Array<{ value: unknown; flow: string; block: string; auto: string }>) {
  // Test names stay ASCII: a raw U+2028 would break the TAP stream.
  t.test(
    JSON.stringify(c.value)
      .slice(0, 60)
      .replace(/[^\x20-\x7e]/g, (ch) => `\\u${ch.charCodeAt(0).toString(16).padStart(4, '0')}`),
    async (t) => {
      t.equal(toYaml(c.value, true), c.flow, 'flow style');
      t.equal(toYaml(c.value, false), c.block, 'block style');
      t.equal(toYaml(c.value, null), c.auto, 'auto style');
      // As `- v: {{ value | yaml }}` renders in an SLS: continuation lines start at column 2.
      const back = loadYaml(`id:\n  test.nop:\n    - v: ${c.flow}\n`);
      t.equal(back.error, undefined, 'the dump embedded in an SLS loads');
      t.same((back.value as any)?.id['test.nop'][0].v, c.value, 'and reads back as the value');
    },
  );
}
