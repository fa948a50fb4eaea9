import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import t from 'tap';
import { writeTree } from './helpers/fleet-tree.js';
import { brine } from './support/brine-cli.js';

/**
 * Keyword arguments a state function does not take, through `brine local`: where Salt's function
 * has **kwargs the state runs as if they were not there, and where it has none (file.append) the
 * state fails with Salt's words; both are warned about at compile time with file and line.
 */

const dir = mkdtempSync(path.join(os.tmpdir(), 'brine-unknown-args-'));
t.teardown(() => rmSync(dir, { recursive: true, force: true }));

t.test('unknown keywords: ignored where Salt ignores them, refused where Salt refuses them, warned about', async (t) => {
  writeTree(dir, {
    'tree/init.sls': [
      `gone:\n  file.absent:\n    - name: ${dir}/none\n    - contents: hello`,
      `pkgs-opts:\n  test.succeed_without_changes:\n    - onlyif_any:\n      - 'false'`,
      `strict:\n  file.append:\n    - name: ${dir}/x\n    - text: hi\n    - bogus: 1`,
    ].join('\n'),
  });
  for (const test of [true, false]) {
    const out = await brine([
      'local',
      'state.apply',
      'init',
      ...(test ? ['test=True'] : []),
      '--file-root',
      path.join(dir, 'tree'),
      '--id',
      'm1',
      '--out',
      'json',
    ]);
    const byId = Object.fromEntries(
      Object.values(JSON.parse(out.stdout).local as Record<string, { __id__: string; result: unknown; comment: string }>).map((s) => [s.__id__, s]),
    );
    t.same([byId.gone!.result, byId.gone!.comment], [true, `File ${dir}/none is not present`]);
    t.same([byId['pkgs-opts']!.result, byId['pkgs-opts']!.comment], [true, 'Success!']);
    t.same([byId.strict!.result, byId.strict!.comment], [false, "'bogus' is an invalid keyword argument for 'file.append'"]);
    t.match(out.stderr, /init\.sls:4:7: warning BRINE_ERR_COMPILE_UNKNOWN_ARG: ID 'gone': file\.absent takes no argument 'contents': Salt ignores it/);
    t.match(out.stderr, /init\.sls:13:7: warning BRINE_ERR_COMPILE_UNKNOWN_ARG: ID 'strict': file\.append takes no argument 'bogus': Salt stops the whole run/);
    t.notMatch(out.stderr, /onlyif_any/, 'test states take any keyword (their **kwargs are part of what they report)');
  }
});
