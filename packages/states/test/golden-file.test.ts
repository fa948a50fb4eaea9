import t, { type Test } from 'tap';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { existsSync, readFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { createRegistry, fileModule } from '../src/index.js';
import { goldenCases, orderFree, runGoldenCase, treeSnapshot } from './golden-cases.js';

/**
 * The file states of issue 10 (recurse, serialize, line, comment, uncomment, blockreplace,
 * accumulated, copy, rename, touch, exists, missing) against Salt 3007's own results for the
 * cases in golden/file (regenerate.sh). salt:// is the case's tree, as it was Salt's file root.
 * Salt walks file.recurse's files and its clean list from Python sets, so the order of the
 * sections of its test-mode comment and of `removed` varies between runs: both are compared
 * sorted. Where Salt's apply left files behind (salt-tree.json), Brine's apply must leave the
 * same paths with the same modes and text.
 */

/**
 * A case with a www/ folder fetches http:// sources: Salt's were served on 127.0.0.1:18841 by the
 * case's setup.sh, here a server on a free port serves the same files (404 in Python's words).
 */
async function serveWww(t: Test, caseDir: string): Promise<Array<[string, string]>> {
  const www = join(caseDir, 'www');
  if (!existsSync(www)) return [];
  const server = createServer((req, res) => {
    const p = join(www, decodeURIComponent(new URL(req.url ?? '/', 'http://x').pathname));
    if (!p.startsWith(`${www}/`) || !existsSync(p)) {
      res.writeHead(404, 'File not found').end();
      return;
    }
    res.writeHead(200).end(readFileSync(p));
  });
  await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
  t.teardown(() => new Promise<void>((ok) => server.close(() => ok())));
  return [['127.0.0.1:18841', `127.0.0.1:${(server.address() as AddressInfo).port}`]];
}

const registry = createRegistry([fileModule()]);
for (const caseDir of goldenCases('file')) {
  for (const mode of ['run', 'test'] as const) {
    t.test(`file/${basename(caseDir)} ${mode}`, async (t) => {
      const rewrite = await serveWww(t, caseDir);
      const capture = join(caseDir, 'salt-tree.json');
      const inspect =
        mode === 'run' && existsSync(capture)
          ? (root: string) => t.same(treeSnapshot(root), JSON.parse(readFileSync(capture, 'utf8')), 'files left as Salt left them')
          : undefined;
      for (const r of await runGoldenCase(caseDir, mode, { registry: () => registry, after: inspect, rewrite }))
        t.same(orderFree(r.got), orderFree(r.want), r.tag);
    });
  }
}
