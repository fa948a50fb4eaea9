import { accessSync, constants, existsSync, readdirSync, statSync } from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import Database from 'better-sqlite3';
import { createLogger, toBrineError } from '@brine/core';
import { CompilePool, confined } from './compile-pool.js';
import { loadMasterConfig, type MasterConfig } from './config.js';
import { holdLock } from './data-dir-lock.js';
import { redactStoreUrl } from './store-location.js';

/** One step of `brine doctor`: WARN does not stop it, FAIL does (the shape of `brine minion --check`'s). */
export interface DoctorStep {
  step: string;
  status: 'ok' | 'WARN' | 'FAIL';
  detail: string;
  hint?: string;
}

type Step = (config: MasterConfig, running: boolean) => Promise<DoctorStep[]> | DoctorStep[];

/**
 * `brine doctor` on the master's host: its config (which file, parse, unknown options), the data
 * dir and its secrets' permissions, the store, the two ports (listening when this master runs,
 * free when it does not), a compile worker's confinement, and the file and pillar roots. Each
 * step goes to `report` as it ends; the first failure stops it. It writes nothing: it only reads,
 * and takes the data dir's lock for an instant to learn whether a master holds it.
 */
export async function doctorMaster(file: string | undefined, report: (s: DoctorStep) => void): Promise<boolean> {
  const warnings: string[] = [];
  let config: MasterConfig;
  try {
    config = loadMasterConfig(file, {}, (_e, msg) => warnings.push(msg));
  } catch (err) {
    const e = toBrineError(err);
    report({ step: 'config', status: 'FAIL', detail: `${e.code}: ${e.message}` });
    return false;
  }
  report({ step: 'config', status: 'ok', detail: `${file ?? 'no file: the defaults'}; data_dir ${config.data_dir}` });
  for (const w of warnings) report({ step: 'config', status: 'WARN', detail: w });
  const running = masterRunning(config);
  for (const step of [dataDir, storeStep, ports, workers, roots]) {
    for (const s of await step(config, running)) {
      report(s);
      if (s.status === 'FAIL') return false;
    }
  }
  return true;
}

/** Whether a master holds this data dir's lock now (taken and released at once when free). */
function masterRunning(config: MasterConfig): boolean {
  const file = path.join(config.data_dir, 'master-lock.db');
  if (!existsSync(file)) return false;
  const lock = holdLock(file);
  lock?.release();
  return lock === undefined;
}

/** Bits of a mode group and others hold, as `0o077` masks them. */
const open = (p: string) => statSync(p).mode & 0o077;

const dataDir: Step = (config, running) => {
  const dir = config.data_dir;
  if (!existsSync(dir)) return [{ step: 'data dir', status: 'WARN', detail: `${dir} does not exist yet: the master makes it (mode 0700) at its first start` }];
  try {
    accessSync(dir, constants.R_OK | constants.W_OK | constants.X_OK);
  } catch {
    return [
      {
        step: 'data dir',
        status: 'FAIL',
        detail: `${dir} is not writable by this user (uid ${process.getuid?.()})`,
        hint: "run brine doctor as the master's user, or chown the data dir to it",
      },
    ];
  }
  const out: DoctorStep[] = [{ step: 'data dir', status: 'ok', detail: `${dir}${running ? ', held by a running master' : ', no master running on it'}` }];
  const secrets = [dir, config.pki_dir, path.join(config.pki_dir, 'master.key'), config.token_file].filter((p) => existsSync(p));
  const loose = secrets.filter((p) => open(p) !== 0);
  if (loose.length > 0) {
    out.push({
      step: 'permissions',
      status: 'FAIL',
      detail: `readable by group or others: ${loose.map((p) => `${p} (${(statSync(p).mode & 0o777).toString(8)})`).join(', ')}`,
      hint: 'they hold the master key, the API token and every minion key: chmod 700 the folders, 600 the files',
    });
  } else out.push({ step: 'permissions', status: 'ok', detail: `${secrets.join(', ')}: owner only` });
  return out;
};

const storeStep: Step = (config) => {
  const url = config.store ?? `sqlite:${path.join(config.data_dir, 'master.db')}`;
  if (!url.startsWith('sqlite:'))
    return [{ step: 'store', status: 'WARN', detail: `${redactStoreUrl(url)}: a PostgreSQL store is not checked by brine doctor` }];
  const file = url.slice('sqlite:'.length);
  if (!existsSync(file)) return [{ step: 'store', status: 'WARN', detail: `${file} does not exist yet: the master makes it at its first start` }];
  let db: Database.Database | undefined;
  try {
    db = new Database(file, { readonly: true, fileMustExist: true, timeout: 2000 });
    const check = db.pragma('quick_check', { simple: true }) as string;
    if (check !== 'ok') return [{ step: 'store', status: 'FAIL', detail: `${file}: quick_check says ${check}`, hint: `sqlite3 ${file} .recover` }];
    const jobs = (db.prepare('SELECT count(*) AS n FROM jobs').get() as { n: number }).n;
    return [{ step: 'store', status: 'ok', detail: `${file}: quick_check ok, ${jobs} job(s)` }];
  } catch (err) {
    return [{ step: 'store', status: 'FAIL', detail: `${file}: ${(err as Error).message}` }];
  } finally {
    db?.close();
  }
};

/** Listening (a master runs), or free to listen on (none runs); port 0 is picked at each start. */
function probePort(what: string, host: string, port: number, option: string, running: boolean): Promise<DoctorStep> {
  const where = `${host}:${port}`;
  if (port === 0) return Promise.resolve({ step: what, status: 'ok', detail: `${option} is 0: the kernel picks one at each start` });
  return new Promise((resolve) => {
    if (running) {
      const s = net.connect({ host: host === '0.0.0.0' ? '127.0.0.1' : host, port, timeout: 3000 });
      s.once('connect', () => (s.destroy(), resolve({ step: what, status: 'ok', detail: `${where} listening` })));
      const fail = (why: string) => {
        s.destroy();
        resolve({
          step: what,
          status: 'FAIL',
          detail: `${where}: ${why}, though a master holds the data dir`,
          hint: 'the master may still be starting, or it failed: read its log',
        });
      };
      s.once('timeout', () => fail('no answer'));
      s.once('error', (e) => fail(e.message));
      return;
    }
    const server = net.createServer();
    server.once('error', (e: NodeJS.ErrnoException) =>
      resolve({
        step: what,
        status: 'FAIL',
        detail: `${where}: ${e.code === 'EADDRINUSE' ? 'another process listens there' : e.message}`,
        hint: e.code === 'EADDRINUSE' ? `\`ss -ltnp sport = :${port}\` names it; stop it or set ${option}` : `set ${option} (or interface/api_host)`,
      }),
    );
    server.listen(port, host, () => server.close(() => resolve({ step: what, status: 'ok', detail: `${where} free` })));
  });
}

const ports: Step = async (config, running) => [
  await probePort('minion port', config.interface, config.port, 'port', running),
  await probePort('api port', config.api_host, config.api_port, 'api_port', running),
];

/** One compile worker started as the master starts them, asked what it may do. */
const workers: Step = async (config) => {
  const pool = new CompilePool(config, createLogger({ level: 'fatal' }), 1);
  try {
    const [c] = await pool.started();
    if (c && confined(c))
      return [{ step: 'workers', status: 'ok', detail: 'a compile worker runs confined: no writes, no child processes or threads, no data dir, pki or token' }];
    const open = c
      ? [
          ...(c.permission ? [] : ['no permission model']),
          ...(c.write ? ['writes'] : []),
          ...(c.child ? ['child processes'] : []),
          ...(c.worker ? ['threads'] : []),
          ...Object.entries(c.readable)
            .filter(([, r]) => r)
            .map(([p]) => `reads ${p}`),
        ]
      : [];
    return [
      {
        step: 'workers',
        status: 'FAIL',
        detail: `a compile worker is not confined: ${open.join(', ')}`,
        hint: 'templates could reach the keys: run the master with the Node runtime it ships with (24)',
      },
    ];
  } catch (err) {
    return [{ step: 'workers', status: 'FAIL', detail: (err as Error).message }];
  } finally {
    await pool.close();
  }
};

const roots: Step = (config) => {
  const out: DoctorStep[] = [];
  for (const [kind, tree, top] of [
    ['file roots', config.file_roots, true],
    ['pillar roots', config.pillar_roots, false],
  ] as const) {
    const dirs = Object.entries(tree).flatMap(([env, ds]) => ds.map((d) => [env, d] as const));
    const missing = dirs.filter(([, d]) => !existsSync(d) || !statSync(d).isDirectory());
    const unreadable = dirs.filter(([, d]) => !missing.some(([, m]) => m === d) && !readable(d));
    if (unreadable.length > 0) {
      out.push({ step: kind, status: 'FAIL', detail: `not readable by this user: ${unreadable.map(([e, d]) => `${e}: ${d}`).join(', ')}` });
      return out;
    }
    if (missing.length > 0) out.push({ step: kind, status: 'WARN', detail: `missing: ${missing.map(([e, d]) => `${e}: ${d}`).join(', ')}` });
    const present = dirs.filter(([, d]) => !missing.some(([, m]) => m === d));
    const hasTop = present.some(([, d]) => readdirSync(d).includes('top.sls'));
    if (present.length > 0)
      out.push({
        step: kind,
        status: top && !hasTop ? 'WARN' : 'ok',
        detail: `${present.map(([e, d]) => `${e}: ${d}`).join(', ')}${hasTop ? ', top.sls found' : ', no top.sls'}`,
      });
  }
  return out;
};

function readable(d: string): boolean {
  try {
    accessSync(d, constants.R_OK | constants.X_OK);
    return true;
  } catch {
    return false;
  }
}
