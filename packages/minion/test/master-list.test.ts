import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import t from 'tap';
import { stringify } from 'yaml';
import { loadMinionConfig } from '../src/config.js';

const dir = mkdtempSync(path.join(os.tmpdir(), 'brine-masters-'));
t.teardown(() => rmSync(dir, { recursive: true, force: true }));

let n = 0;
function configFile(master: unknown, extra: Record<string, unknown> = {}): string {
  const file = path.join(dir, `minion-${++n}.yaml`);
  writeFileSync(file, stringify({ id: 'm1', data_dir: 'data', master, ...extra }));
  return file;
}

t.test('master: one entry keeps its single-string form; a list is tried in order', async (t) => {
  const one = loadMinionConfig(configFile('salt.example:4606'));
  t.equal(one.master, 'salt.example');
  t.equal(one.master_port, 4606);
  t.same(one.masters, [{ host: 'salt.example', port: 4606 }]);

  const plain = loadMinionConfig(configFile('10.0.0.5', { master_port: 4700 }));
  t.same(plain.masters, [{ host: '10.0.0.5', port: 4700 }]);

  const list = loadMinionConfig(configFile(['m-a.example:4506', '10.0.0.6', '[fd00::7]:4510', 'fd00::8'], { master_port: 4600 }));
  t.same(list.master, ['m-a.example:4506', '10.0.0.6', '[fd00::7]:4510', 'fd00::8'], 'the option stays as given (config.get shows the list)');
  t.same(list.masters, [
    { host: 'm-a.example', port: 4506 },
    { host: '10.0.0.6', port: 4600 },
    { host: 'fd00::7', port: 4510 },
    { host: 'fd00::8', port: 4600 },
  ]);
});

t.test('a bad master entry is a coded error naming the config file and the entry', async (t) => {
  const cases: Array<[unknown, RegExp]> = [
    [[], /master: the list is empty/],
    [['a.example', 42], /master\[1\]: 42 is not a string/],
    [['a.example', ''], /master\[1\]: '' is empty/],
    [['a.example:4506', 'b.example:http'], /master\[1\]: 'b.example:http' has a bad port 'http'/],
    [['a.example:70000'], /master\[0\]: 'a.example:70000' has a bad port '70000'/],
    [['a.example:0'], /master\[0\]: 'a.example:0' has a bad port '0'/],
    [['a.example', 'bad host!'], /master\[1\]: 'bad host!' has a bad host 'bad host!'/],
    [['fd00::1:2:x'], /master\[0\]: 'fd00::1:2:x' is not 'host:port'/],
    [['[salt]:4506'], /master\[0\]: '\[salt\]:4506' has brackets around something that is not an IPv6 address/],
    [['a.example:4506', 'b.example', 'A.example:4506'], /master\[2\]: 'A.example:4506' is listed twice \(also master\[0\]\)/],
    ['salt:', /master: 'salt:' has a bad port ''/],
    [{ host: 'a' }, /option 'master' must be a master \('host' or 'host:port'\) or a list of them/],
  ];
  for (const [master, message] of cases) {
    const file = configFile(master);
    t.throws(
      () => loadMinionConfig(file),
      { code: 'BRINE_ERR_MINION_CONFIG', message: new RegExp(`^minion config ${file.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}: ${message.source}`) },
      JSON.stringify(master),
    );
  }
});

t.test('`--master a,b` on the command line is a list too', async (t) => {
  const c = loadMinionConfig(undefined, { id: 'm1', master: ['127.0.0.1:4506', '127.0.0.1:4516'] });
  t.same(c.masters, [
    { host: '127.0.0.1', port: 4506 },
    { host: '127.0.0.1', port: 4516 },
  ]);
  t.throws(() => loadMinionConfig(undefined, { id: 'm1', master: ['127.0.0.1:4506', 'x:y'] }), {
    code: 'BRINE_ERR_MINION_CONFIG',
    message: /^minion config -: master\[1\]: 'x:y' has a bad port 'y'/,
  });
});
