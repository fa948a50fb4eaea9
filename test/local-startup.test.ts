import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import t from 'tap';
import { BIN } from './helpers/proc.js';

/**
 * `brine local` is started once per run on every host: what it loads at start is paid each time.
 * The network stacks belong to the commands that talk to a master; loading them at import once
 * cost `brine local test.ping` about 35 ms of its 160.
 */
t.test('brine local loads no http, https, http2 or tls module', (t) => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'brine-startup-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  writeFileSync(path.join(dir, 'top.sls'), 'base: {}\n');
  const list = path.join(dir, 'modules.txt');
  const hook = path.join(dir, 'hook.cjs');
  writeFileSync(hook, `process.on('exit', () => require('fs').writeFileSync(${JSON.stringify(list)}, process.moduleLoadList.join('\\n')));\n`);
  const r = spawnSync(process.execPath, ['--require', hook, BIN, 'local', 'test.ping', '--file-root', dir, '--id', 'startup'], { encoding: 'utf8' });
  t.equal(r.status, 0, r.stderr);
  t.match(r.stdout, /True/);
  const loaded = readFileSync(list, 'utf8').split('\n');
  t.ok(loaded.length > 50, 'the module list was written');
  t.same(
    loaded.filter((m) => /^NativeModule (https?|http2|tls|_http_client)$/.test(m)),
    [],
  );
  t.end();
});
