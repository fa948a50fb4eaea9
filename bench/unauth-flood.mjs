// A flood of connections that never authenticate, against one real master with its default
// limits. Prints one JSON line:
//   opened            TLS handshakes that completed (the rest were closed on arrival: caps)
//   open_after_s      connections still open `WAIT` seconds after the flood
//   api_median_ms     median answer of GET /v1/stats during the flood (40 sequential requests)
//   master_fds_peak   most file descriptors the master held during the flood
// Usage: node bench/unauth-flood.mjs [N] [WAIT]   (defaults 3000 and 30)
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import tls from 'node:tls';
import { startMaster } from './lib/cluster.mjs';

const N = Number(process.argv[2] ?? 3000);
const WAIT = Number(process.argv[3] ?? 30);
const dir = mkdtempSync(path.join(os.tmpdir(), 'brine-flood-'));
const master = await startMaster(dir, '', { fleet: false });
const port = master.ready.port;
const fds = () => readdirSync(`/proc/${master.proc.pid}/fd`).length;

let opened = 0;
let open = 0;
let fdPeak = fds();
const sockets = [];
for (let i = 0; i < N; i++) {
  const s = tls.connect({ port, host: '127.0.0.1', rejectUnauthorized: false });
  open++;
  s.on('secureConnect', () => opened++);
  s.on('error', () => {});
  s.on('close', () => open--);
  sockets.push(s);
  if (i % 200 === 0) fdPeak = Math.max(fdPeak, fds());
}
const times = [];
for (let i = 0; i < 40; i++) {
  const t0 = performance.now();
  await master.client.get('/v1/stats');
  times.push(performance.now() - t0);
  fdPeak = Math.max(fdPeak, fds());
}
times.sort((a, b) => a - b);
await new Promise((r) => setTimeout(r, WAIT * 1000));
const stats = await master.client.get('/v1/stats');
console.log(
  JSON.stringify({
    connections: N,
    opened,
    open_after_s: { [WAIT]: open },
    api_median_ms: Math.round(times[20]),
    api_max_ms: Math.round(times[39]),
    master_fds_peak: fdPeak,
    unauth_refused: stats.unauth_refused,
    auth_timeouts: stats.auth_timeouts,
  }),
);
for (const s of sockets) s.destroy();
master.proc.kill('SIGTERM');
rmSync(dir, { recursive: true, force: true });
