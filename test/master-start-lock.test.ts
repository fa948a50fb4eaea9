import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import t from 'tap';
import { stringify } from 'yaml';
import { BrineProcess } from './helpers/proc.js';

const dir = mkdtempSync(path.join(os.tmpdir(), 'brine-lock-'));
t.teardown(() => rmSync(dir, { recursive: true, force: true }));
const running: BrineProcess[] = [];
t.teardown(() => Promise.all(running.map((p) => p.kill('SIGTERM'))));

/** A master process on a config of its own; resolves once it is ready or has exited. */
async function master(name: string, opts: Record<string, unknown>, args: string[] = []): Promise<BrineProcess> {
  const file = path.join(dir, `${name}.yaml`);
  writeFileSync(file, stringify({ interface: '127.0.0.1', port: 0, api_port: 0, data_dir: path.join(dir, name), ...opts }));
  const p = new BrineProcess(name, ['master', '--config', file, ...args]);
  running.push(p);
  await Promise.race([p.waitEvent('master_ready', 30_000), p.exited()]);
  return p;
}

/** The exit status of a master that should not have started (one that did is stopped first). */
async function refusal(p: BrineProcess): Promise<{ started: boolean; stderr: string }> {
  const started = p.running;
  await p.kill('SIGTERM');
  return { started, stderr: p.stderrText };
}

const log = (p: BrineProcess) => ({ stderr: p.stderrText.slice(-2000) });

t.test('a PID file left by an earlier master, naming a live process, does not block a start', async (t) => {
  const data = path.join(dir, 'stale');
  mkdirSync(data, { recursive: true });
  // the pid of a live, unrelated process: this test's own, and pid 1
  for (const pid of [process.pid, 1]) {
    writeFileSync(path.join(data, 'master.lock'), `${pid}\n`);
    const m = await master('stale', {});
    t.ok(m.running, `a master starts over a master.lock naming pid ${pid}`, log(m));
    await m.kill('SIGTERM');
  }
});

t.test('two masters on one data_dir: the second is refused', async (t) => {
  const first = await master('onedir', {});
  t.ok(first.running, 'the first master starts', log(first));
  const second = await refusal(await master('onedir', {}));
  t.notOk(second.started, 'the second master does not start');
  t.match(second.stderr, /BRINE_ERR_MASTER_LOCKED: data_dir .*onedir.*another master/);
  await first.kill('SIGTERM');
});

t.test('two masters with their own data_dir on one SQLite store: the second is refused; a SIGKILLed holder frees it at once', async (t) => {
  const store = `sqlite:${path.join(dir, 'shared.db')}`;
  const first = await master('share-a', { store });
  t.ok(first.running, 'the first master starts', log(first));
  const second = await refusal(await master('share-b', { store }));
  t.notOk(second.started, 'the second master does not start');
  t.match(second.stderr, /BRINE_ERR_MASTER_STORE_LOCKED: store .*shared\.db is in use by another master/);
  await first.kill('SIGKILL');
  const third = await master('share-b', { store });
  t.ok(third.running, 'a new master starts once the holder is killed', log(third));
  await third.kill('SIGTERM');
});

t.test('a deleted master.db beside the keys of an earlier start is refused unless --new-store', async (t) => {
  const first = await master('lost', {});
  t.ok(first.running, 'the first master starts', log(first));
  await first.kill('SIGTERM');
  const db = path.join(dir, 'lost', 'master.db');
  for (const f of [db, `${db}-wal`, `${db}-shm`]) rmSync(f, { force: true });
  const again = await refusal(await master('lost', {}));
  t.notOk(again.started, 'no empty master starts');
  t.match(again.stderr, /BRINE_ERR_MASTER_STORE_MISSING: store .*lost\/master\.db does not exist/);
  t.match(again.stderr, /--new-store/, 'the error says how to begin a new store deliberately');
  const fresh = await master('lost', {}, ['--new-store']);
  t.ok(fresh.running, '--new-store starts on a new store', log(fresh));
  await fresh.kill('SIGTERM');
});
