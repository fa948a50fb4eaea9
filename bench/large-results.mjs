#!/usr/bin/env node
// Benchmark: large results and large compiles (issue 20, item 4). One master and one minion as
// real processes; scenarios: a state whose cmd.run prints 5 MB, and a 30,000-state state.sls.
// For each: time until the return is stored (or the job timed out), the minion's reconnects
// (sessions the master authenticated), and the API's median answer time during the job.
// Prints one JSON line per scenario. Usage: node bench/large-results.mjs [timeout_s=120] [loud,many]
// (one scenario at a time keeps an unfixed minion's reconnect loop out of the other's figures).
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { MasterClient } from '@brine/master/client';

const BIN = path.resolve('packages/cli/dist/bin.js');
const timeout = Number(process.argv[2] ?? 120);
const which = (process.argv[3] ?? 'loud,many').split(',');
const dir = mkdtempSync(path.join(tmpdir(), 'brine-large-'));
const states = path.join(dir, 'states');
mkdirSync(states);
writeFileSync(path.join(states, 'loud.sls'), "loud:\n  cmd.run:\n    - name: head -c 5000000 /dev/zero | tr '\\0' a\n");
writeFileSync(path.join(states, 'many.sls'), Array.from({ length: 30000 }, (_, i) => `s${i}:\n  test.succeed_without_changes\n`).join(''));

function start(args, onLine) {
  const p = spawn(process.execPath, [BIN, ...args], { stdio: ['ignore', 'ignore', 'pipe'] });
  let buf = '';
  p.stderr.setEncoding('utf8').on('data', (c) => {
    buf += c;
    let i;
    while ((i = buf.indexOf('\n')) >= 0) {
      const line = buf.slice(0, i);
      buf = buf.slice(i + 1);
      try {
        onLine(JSON.parse(line));
      } catch {
        /* not a log line */
      }
    }
  });
  return p;
}

let sessions = 0;
let onReady;
const ready = new Promise((r) => (onReady = r));
writeFileSync(
  path.join(dir, 'master.yaml'),
  `interface: 127.0.0.1\nport: 0\napi_port: 0\ndata_dir: ${dir}/master\nautosign: ['*']\nping_interval: 0\nfile_roots: {base: [${states}]}\n`,
);
const master = start(['master', '--config', path.join(dir, 'master.yaml')], (l) => {
  if (l.event === 'master_ready') onReady(l);
  if (l.msg === 'minion authenticated') sessions++;
});
const info = await ready;
const client = new MasterClient({ url: info.api_url, token: readFileSync(`${dir}/master/api_token`, 'utf8').trim() });
writeFileSync(
  path.join(dir, 'minion.yaml'),
  `id: big\nmaster: 127.0.0.1\nmaster_port: ${info.port}\ndata_dir: ${dir}/minion\nrecon_default: 1\nrecon_max: 30\n`,
);
const minion = start(['minion', '--config', path.join(dir, 'minion.yaml')], () => {});
for (;;) {
  const { minions } = await client.get('/v1/minions');
  if (minions.some((m) => m.id === 'big' && m.connected && m.grains.os)) break;
  await new Promise((r) => setTimeout(r, 100));
}

async function scenario(name, sls) {
  const before = sessions;
  const lat = [];
  let done = false;
  const t0 = performance.now();
  const job = client.post('/v1/jobs', { tgt: 'big', fun: 'state.sls', arg: [sls], wait: true, timeout });
  const probe = (async () => {
    while (!done) {
      const a = performance.now();
      await client.get('/v1/minions');
      lat.push(performance.now() - a);
      await new Promise((r) => setTimeout(r, 100));
    }
  })();
  const r = await job;
  const ms = Math.round(performance.now() - t0);
  done = true;
  await probe;
  lat.sort((a, b) => a - b);
  const { states: rows } = await client.get(`/v1/jobs/${r.jid}/states`);
  const ret = r.returns.big;
  console.log(
    JSON.stringify({
      bench: 'large-results',
      scenario: name,
      returned: !!ret,
      ms_to_return: ret ? ms : null,
      waited_ms: ms,
      reconnects: sessions - before,
      states_stored: rows.length,
      api_median_ms: +lat[Math.floor(lat.length / 2)].toFixed(1),
    }),
  );
}

if (which.includes('loud')) await scenario('cmd.run 5 MB', 'loud');
if (which.includes('many')) await scenario('30,000 states', 'many');
minion.kill('SIGKILL');
master.kill('SIGTERM');
await new Promise((r) => master.on('exit', r));
rmSync(dir, { recursive: true, force: true });
