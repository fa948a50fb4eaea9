import { chmodSync, cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createLogger } from '@brine/core';
import t from 'tap';
import { MASTER_DEFAULTS, type MasterConfig } from '../src/config.js';
import { loadMasterTops } from '../src/master-tops.js';
import { StateService } from '../src/state-service.js';
import { formatSources, pillarSources } from '../src/ext-pillar/assemble.js';

const log = createLogger({ level: 'silent' });
const GOLDEN = path.join(import.meta.dirname, 'golden', 'ext-pillar-merge');

function tmp(t: { teardown(fn: () => void): void }): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'brine-ext-pillar-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

async function service(cfg: Partial<MasterConfig>): Promise<StateService> {
  const config = { ...MASTER_DEFAULTS, pillar_roots: {}, ...cfg } as MasterConfig;
  return new StateService(config, await loadMasterTops(config.master_tops, config.master_tops_dirs), log);
}

/** A shell script in `dir` printing `body` (with $1 the minion id). */
function script(dir: string, name: string, body: string): string {
  const file = path.join(dir, name);
  writeFileSync(file, `#!/bin/sh\n${body}\n`);
  chmodSync(file, 0o755);
  return file;
}

/** Salt shows file_tree values as Python bytes reprs (b'...'); Brine gives their text. */
function unbytes(v: unknown): unknown {
  if (typeof v === 'string') {
    const m = /^b'(.*)'$/s.exec(v);
    return m ? m[1]!.replaceAll('\\n', '\n') : v;
  }
  if (Array.isArray(v)) return v.map(unbytes);
  if (v && typeof v === 'object') return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, unbytes(x)]));
  return v;
}

t.test("Salt's merge of pillar_roots, cmd_yaml and file_tree, per strategy and ext_pillar_first (golden)", async (t) => {
  const dir = tmp(t);
  cpSync(GOLDEN, dir, { recursive: true });
  const golden = JSON.parse(readFileSync(path.join(GOLDEN, 'salt.json'), 'utf8')) as {
    cases: Record<string, { config: Partial<MasterConfig>; salt: unknown }>;
  };
  const ext_pillar = [{ cmd_yaml: `sh ${dir}/cmd.sh %s` }, { file_tree: { root_dir: path.join(dir, 'tree'), keep_newline: ['files/kept*'] } }];
  for (const [name, c] of Object.entries(golden.cases)) {
    const s = await service({ pillar_roots: { base: [path.join(dir, 'pillar')] }, ext_pillar, ...c.config });
    const p = await s.pillar('anchor', {});
    t.same(p.diagnostics, [], `${name}: no errors`);
    t.strictSame(p.pillar, unbytes(c.salt), name);
  }
});

t.test('cmd_json: %s is the minion id; the output is asked again at each compile (not cached with the trees)', async (t) => {
  const dir = tmp(t);
  const value = path.join(dir, 'value');
  writeFileSync(value, 'one');
  const cmd = script(dir, 'j.sh', `printf '{"who": "%s", "v": "%s"}' "$1" "$(cat ${value})"`);
  const s = await service({ ext_pillar: [{ cmd_json: `${cmd} %s` }] });
  t.same((await s.pillar('web-1', {})).pillar, { who: 'web-1', v: 'one' });
  writeFileSync(value, 'two');
  t.same((await s.pillar('web-1', {})).pillar, { who: 'web-1', v: 'two' });
});

t.test("a failing source is that minion's pillar error naming it; the other sources still merge", async (t) => {
  const dir = tmp(t);
  const good = script(dir, 'good.sh', 'echo "good: 1"');
  const cases: Array<[string, string, RegExp]> = [
    ['exit', script(dir, 'exit.sh', 'echo "secret: hunter2"; exit 3'), /exited with 3/],
    ['list', script(dir, 'list.sh', 'echo "- a"'), /a list, not a mapping/],
    ['yaml', script(dir, 'bad.sh', 'echo "a: [b"'), /not YAML/],
    ['big', script(dir, 'big.sh', 'head -c 5000000 /dev/zero | tr "\\0" a'), /more than 4194304 bytes/],
    ['slow', script(dir, 'slow.sh', 'exec sleep 30'), /timed out after 1 s/],
  ];
  for (const [name, cmd, why] of cases) {
    const s = await service({ ext_pillar: [{ cmd_yaml: `${cmd} --token=abc` }, { cmd_yaml: good }], ext_pillar_timeout: 1 });
    const p = await s.pillar('m1', {});
    t.same(p.pillar, { good: 1 }, `${name}: the good source merged`);
    t.equal(p.diagnostics.length, 1, name);
    t.equal(p.diagnostics[0]!.code, 'BRINE_ERR_MASTER_EXT_PILLAR');
    t.match(p.diagnostics[0]!.message, why, name);
    t.match(p.diagnostics[0]!.message, `Failed to load ext_pillar:cmd_yaml ${cmd}:`, `${name}: names the source`);
    t.notMatch(p.diagnostics[0]!.message, /hunter2|token=abc/, `${name}: neither the output nor the arguments`);
  }
});

t.test('file_tree: hosts/<id>, keep_newline, links to folders as Salt walks them', async (t) => {
  const dir = tmp(t);
  const host = path.join(dir, 'tree', 'hosts', 'm1');
  mkdirSync(path.join(host, 'conf'), { recursive: true });
  mkdirSync(path.join(dir, 'elsewhere'));
  writeFileSync(path.join(dir, 'elsewhere', 'x'), 'outside\n');
  writeFileSync(path.join(host, 'conf', 'a.cfg'), 'k = v\n');
  writeFileSync(path.join(host, 'motd'), 'hello\n\n');
  symlinkSync(path.join(dir, 'elsewhere'), path.join(host, 'linked'));
  const root_dir = path.join(dir, 'tree');
  const plain = await service({ ext_pillar: [{ file_tree: { root_dir } }] });
  t.strictSame((await plain.pillar('m1', {})).pillar, { conf: { 'a.cfg': 'k = v' }, linked: {}, motd: 'hello\n' });
  t.strictSame((await plain.pillar('m2', {})).pillar, {}, 'a minion without a folder gets nothing');
  const kept = await service({ ext_pillar: [{ file_tree: { root_dir, keep_newline: ['conf/*'], follow_dir_links: true } }] });
  t.strictSame((await kept.pillar('m1', {})).pillar, { conf: { 'a.cfg': 'k = v\n' }, linked: { x: 'outside' }, motd: 'hello\n' });
});

t.test('explain names the source of each value, and what it shadowed', async (t) => {
  const dir = tmp(t);
  mkdirSync(path.join(dir, 'pillar'));
  writeFileSync(path.join(dir, 'pillar', 'top.sls'), "base:\n  '*':\n    - common\n");
  writeFileSync(path.join(dir, 'pillar', 'common.sls'), 'app:\n  port: 80\n  name: roots\n');
  const cmd = script(dir, 'c.sh', 'echo "app: {port: 8080}"');
  const s = await service({ pillar_roots: { base: [path.join(dir, 'pillar')] }, ext_pillar: [{ cmd_yaml: cmd }] });
  const p = await s.pillar('m1', {});
  const found = pillarSources(p.pillar, p.parts ?? [], 'app');
  t.same(found, [
    { name: 'app.port', value: 8080, sources: [`ext_pillar:cmd_yaml ${cmd}`, 'pillar_roots'] },
    { name: 'app.name', value: 'roots', sources: ['pillar_roots'] },
  ]);
  t.equal(
    formatSources(pillarSources(p.pillar, p.parts ?? [], 'app:port')),
    `app.port: 8080\n    from: ext_pillar:cmd_yaml ${cmd}\n    shadows: pillar_roots\n`,
  );
});

t.test('ext_pillar options are checked at start', async (t) => {
  const bad: Array<[Partial<MasterConfig>, RegExp]> = [
    [{ ext_pillar: [{ file_tree: { root_dir: 'rel' } }] }, /root_dir must be an absolute path/],
    [{ ext_pillar: [{ file_tree: { root_dir: '/x', template: true } }] }, /template: true is not supported/],
    [{ ext_pillar: [{ cmd_yaml: '' }] }, /cmd_yaml: expected a command line/],
    [{ ext_pillar: [{ postgres: ['SELECT a FROM t WHERE id = %d'] }] }, /'%d' is neither/],
    [{ ext_pillar: [{ postgres: ['SELECT 1'] }], postgres: { pass: 'x' } }, /remove `pass`/],
    [{ pillar_source_merging_strategy: 'deep' }, /pillar_source_merging_strategy: 'deep'/],
  ];
  for (const [cfg, why] of bad) await t.rejects(service(cfg), { code: 'BRINE_ERR_MASTER_CONFIG', message: why });
});

t.test('pillar_source_merging_strategy merges the pillar roots’ files too, as Salt does (golden)', async (t) => {
  const golden = path.join(import.meta.dirname, 'golden', 'pillar-roots-strategy');
  const cases = (
    JSON.parse(readFileSync(path.join(golden, 'salt.json'), 'utf8')) as { cases: Record<string, { config: Partial<MasterConfig>; salt: unknown }> }
  ).cases;
  for (const [name, c] of Object.entries(cases)) {
    const s = await service({ pillar_roots: { base: [path.join(golden, 'pillar')] }, ...c.config });
    t.strictSame((await s.pillar('anchor', {})).pillar, c.salt, name);
  }
});

t.test("ext_pillar_first: the pillar roots' templates see the ext_pillar's values (golden)", async (t) => {
  const golden = path.join(import.meta.dirname, 'golden', 'ext-pillar-first');
  const salt = (JSON.parse(readFileSync(path.join(golden, 'salt.json'), 'utf8')) as { salt: unknown }).salt;
  const s = await service({
    pillar_roots: { base: [path.join(golden, 'pillar')] },
    ext_pillar: [{ cmd_yaml: `sh ${GOLDEN}/cmd.sh %s` }],
    ext_pillar_first: true,
  });
  const p = await s.pillar('anchor', {});
  t.same(p.diagnostics, []);
  t.strictSame(p.pillar, salt);
  t.same(pillarSources(p.pillar, p.parts ?? [], 'seen_by_roots')[0]?.sources, ['pillar_roots'], 'values the roots templates saw are not taken for theirs');
  t.same(pillarSources(p.pillar, p.parts ?? [], 'top_cmd')[0]?.sources, [`ext_pillar:cmd_yaml sh`]);
});

t.test("file_tree: the folders of the minion's nodegroups, then its host folder over them", async (t) => {
  const dir = tmp(t);
  const root_dir = path.join(dir, 'tree');
  const put = (rel: string, text: string) => {
    mkdirSync(path.dirname(path.join(root_dir, rel)), { recursive: true });
    writeFileSync(path.join(root_dir, rel), text);
  };
  put('nodegroups/all/x', 'all');
  put('nodegroups/all/y', 'all');
  put('nodegroups/webs/x', 'web');
  put('nodegroups/unknown/x', 'not a configured nodegroup');
  put('hosts/m1/y', 'host');
  const s = await service({ nodegroups: { all: '*', webs: 'G@role:web' }, ext_pillar: [{ file_tree: { root_dir } }] });
  t.strictSame((await s.pillar('m1', { role: 'web' })).pillar, { x: 'web', y: 'host' });
  t.strictSame((await s.pillar('m2', { role: 'db' })).pillar, { x: 'all', y: 'all' }, 'no host folder: the nodegroups only');
});
