import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import t from 'tap';
import { BIN } from './helpers/proc.js';

const dir = mkdtempSync(path.join(os.tmpdir(), 'brine-logs-'));
t.teardown(() => rmSync(dir, { recursive: true, force: true }));
const config = path.join(dir, 'master.yaml');
writeFileSync(config, `interface: 127.0.0.1\nport: 0\napi_port: 0\ndata_dir: ${dir}/data\n`);

/** Starts a master with extra flags and resolves with its first stderr line once it is ready. */
function firstLine(args: string[]): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, 'master', '--config', config, ...args], {
      stdio: ['ignore', 'ignore', 'pipe'],
      env: { ...process.env, BRINE_LOG_FORMAT: '' },
    });
    let err = '';
    child.stderr.on('data', (d) => {
      err += d;
      const nl = err.indexOf('\n');
      if (nl >= 0) {
        child.kill('SIGTERM');
        resolve(err.slice(0, nl));
      }
    });
    child.on('error', reject);
    child.on('close', () => resolve(err));
  });
}

t.test('--log-format pretty: the start line says in words where everything is', async (t) => {
  const line = await firstLine(['--log-format', 'pretty']);
  t.match(
    line,
    /INFO: master ready: minions connect to 127\.0\.0\.1:\d+ \(certificate fingerprint [0-9A-F:]{95}\); operator API at http:\/\/127\.0\.0\.1:\d+, token in .*data\/api_token/,
  );
  t.notMatch(line, /^\{/);
});

t.test('--log-format json (and the default when stderr is not a terminal) logs JSON', async (t) => {
  for (const args of [['--log-format', 'json'], []]) {
    const rec = JSON.parse(await firstLine(args)) as { event: string; api_url: string; msg: string };
    t.equal(rec.event, 'master_ready');
    t.match(rec.msg, /^master ready: minions connect to/);
  }
});
