import { chmodSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import t from 'tap';
import { brine } from './support/brine-cli.js';

t.test('brine never writes (nor runs) compiled templates in a folder others can write to', async (t) => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'brine-tpl-trust-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const cache = path.join(dir, 'cache');
  writeFileSync(path.join(dir, 'a.sls'), "a:\n  test.nop:\n    - name: {{ 'x' ~ 1 }}\n");
  mkdirSync(cache);
  chmodSync(cache, 0o777);
  const r = await brine(['local', 'state.show_sls', 'a', '--file-root', dir, '--out', 'json'], { env: { BRINE_TEMPLATE_CACHE: cache } });
  t.equal(r.code, 0, r.stderr);
  t.match(r.stdout, /"x1"/);
  const written = readdirSync(cache, { recursive: true }).filter((f) => String(f).endsWith('.js'));
  t.same(written, [], 'no compiled code cached there');
  chmodSync(cache, 0o700);
  const ok = await brine(['local', 'state.show_sls', 'a', '--file-root', dir, '--out', 'json'], { env: { BRINE_TEMPLATE_CACHE: cache } });
  t.equal(ok.code, 0);
  t.ok(
    readdirSync(cache, { recursive: true }).some((f) => String(f).endsWith('.js')),
    'a private folder is used',
  );
});
