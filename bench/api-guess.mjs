// Token guessing against one real master's operator API: for SECONDS each, wrong bearer tokens
// (GET /v1/minions) and wrong console sign-ins (POST /ui/login) from 127.0.0.2, CONC requests in
// flight, while the operator (127.0.0.1, the right token) asks GET /v1/stats. Prints one JSON line:
//   bearer_401_per_s / bearer_429_per_s   wrong bearer tokens answered 401 (checked) / 429 (held off)
//   login_401_per_s / login_429_per_s     the same for console sign-ins
//   api_median_ms                         the operator's median answer during the guessing
// Usage: node bench/api-guess.mjs [SECONDS] [CONC]   (defaults 5 and 16)
import { mkdtempSync, rmSync } from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { startMaster } from './lib/cluster.mjs';

const SECONDS = Number(process.argv[2] ?? 5);
const CONC = Number(process.argv[3] ?? 16);
const dir = mkdtempSync(path.join(os.tmpdir(), 'brine-guess-'));
const master = await startMaster(dir, '', { fleet: false });
const api = new URL(master.ready.api_url);
const agent = new http.Agent({ keepAlive: true, localAddress: '127.0.0.2' });

function ask(method, route, headers, body) {
  return new Promise((resolve) => {
    const req = http.request({ host: api.hostname, port: api.port, method, path: route, headers, agent }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode));
    });
    req.on('error', () => resolve(0));
    req.end(body);
  });
}

async function guess(kind) {
  const counts = {};
  const end = Date.now() + SECONDS * 1000;
  let n = 0;
  const worker = async () => {
    while (Date.now() < end) {
      const i = n++;
      const status =
        kind === 'bearer'
          ? await ask('GET', '/v1/minions', { authorization: `Bearer guess-${i}` })
          : await ask('POST', '/ui/login', { 'content-type': 'application/json' }, JSON.stringify({ token: `guess-${i}` }));
      counts[status] = (counts[status] ?? 0) + 1;
    }
  };
  const times = [];
  const operator = async () => {
    while (Date.now() < end) {
      const t0 = performance.now();
      await master.client.get('/v1/stats');
      times.push(performance.now() - t0);
      await new Promise((r) => setTimeout(r, 50));
    }
  };
  await Promise.all([...Array.from({ length: CONC }, worker), operator()]);
  times.sort((a, b) => a - b);
  return { counts, median: times[Math.floor(times.length / 2)] };
}

const bearer = await guess('bearer');
// a fresh source for the sign-ins: the bearer guesses may have held 127.0.0.2 off
agent.options.localAddress = '127.0.0.3';
agent.destroy();
const login = await guess('login');
const rate = (c, s) => Math.round((c[s] ?? 0) / SECONDS);
console.log(
  JSON.stringify({
    seconds: SECONDS,
    concurrency: CONC,
    bearer_401_per_s: rate(bearer.counts, 401),
    bearer_429_per_s: rate(bearer.counts, 429),
    login_401_per_s: rate(login.counts, 401),
    login_429_per_s: rate(login.counts, 429),
    api_median_ms: +Math.max(bearer.median, login.median).toFixed(1),
  }),
);
agent.destroy();
master.proc.kill('SIGTERM');
rmSync(dir, { recursive: true, force: true });
