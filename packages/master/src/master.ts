import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { Accounts, ldapOptions } from './auth/accounts.js';
import { checkExternalAuth } from './auth/permissions.js';
import { createServer as createHttpServer, type Server as HttpServer } from 'node:http';
import { createServer, type Server as HttpsServer } from 'node:https';
import { createServer as createNetServer, type AddressInfo } from 'node:net';
import path from 'node:path';
import { createLogger, type Logger, type ScheduleEngine } from '@brine/core';
import { EXPORTER_LABEL } from '@brine/protocol';
import type { FastifyInstance } from 'fastify';
import { buildApi, type ApiDeps } from './api.js';
import type { MasterConfig } from './config.js';
import { lockDataDir, lockSqliteStore, type HeldLock } from './data-dir-lock.js';
import { masterErrors } from './errors.js';
import { EventBus } from './event-bus.js';
import { TlsThread, type MinionAcceptor } from './tls-thread.js';
import { MinionHub } from './hub.js';
import { JobManager } from './jobs.js';
import { KeyManager } from './keys.js';
import { refuseLostStore } from './store.js';
import type { StoreBackend } from './store-backend.js';
import { openStore } from './store-url.js';
import { configuredCertificate, ensureCertificate, ensureToken, ticketKeys, TLS_SESSION_SECONDS } from './tls.js';
import { FileServer } from './file-server.js';
import { loadMasterTops } from './master-tops.js';
import { requestHandler } from './requests.js';
import { MineService } from './mine.js';
import { StateService } from './state-service.js';
import { setRenderTimeout } from '@brine/compiler';
import { CompilePool } from './compile-pool.js';
import { ClusterLink, defaultClusterId } from './cluster.js';
import { MasterMetrics } from './metrics.js';
import { startMasterSchedule } from './master-schedule.js';
import { masterRunners } from './orchestrations.js';
import type { RunRunner } from './runners.js';
import { startReactor } from './reactor-wiring.js';
import type { Reactor } from './reactor.js';

export interface Master {
  config: MasterConfig;
  store: StoreBackend;
  /** Set when the store is shared by a cluster of masters (PostgreSQL). */
  cluster?: ClusterLink;
  hub: MinionHub;
  jobs: JobManager;
  /** The master's runners (state.orchestrate): the reactor and master schedules take this. */
  runRunner: RunRunner;
  keys: KeyManager;
  events: EventBus;
  states: StateService;
  files: FileServer;
  api: FastifyInstance;
  /** Port of the minion channel (wss) and of the operator API, as bound. */
  port: number;
  apiPort: number;
  apiUrl: string;
  fingerprint: string;
  token: string;
  close(): Promise<void>;
}

/** Starts the master: store, TLS minion channel, operator API, retention timer. */
/** A port that cannot be had, said in words: which one, and what to do about it. */
function listenError(err: unknown, what: string, host: string, port: number, option: string): unknown {
  const code = (err as { code?: string }).code;
  if (code !== 'EADDRINUSE' && code !== 'EACCES' && code !== 'EADDRNOTAVAIL') return err;
  const why =
    code === 'EADDRINUSE'
      ? `another process already listens there (another brine master? 'ss -ltnp sport = :${port}' names it): stop it, or set ${option} in the master config`
      : code === 'EACCES'
        ? `permission denied (ports below 1024 need root): choose another ${option}`
        : `${host} is not an address of this host: set interface/api_host in the master config`;
  return masterErrors.make('BRINE_ERR_MASTER_LISTEN', { what, address: `${host}:${port}`, detail: why });
}

export async function startMaster(config: MasterConfig, log: Logger = createLogger({ level: config.log_level })): Promise<Master> {
  mkdirSync(config.data_dir, { recursive: true, mode: 0o700 });
  const locks: HeldLock[] = [lockDataDir(config.data_dir)];
  const release = () => {
    for (const l of locks.reverse()) l.release();
  };
  let master: Master;
  try {
    master = await startLocked(config, log, locks);
  } catch (err) {
    release();
    throw err;
  }
  // the git remotes (gitfs, git_pillar): fetched now and every gitfs_update_interval
  master.states.git.start(config.gitfs_update_interval);
  const close = master.close.bind(master);
  master.close = async () => {
    master.states.git.stop();
    await close();
    release();
  };
  return master;
}

/**
 * The SQLite store, locked for this master, after checking it was not lost since an earlier
 * start. `<data_dir>/store-location` records that a store was begun here (evidence when the
 * certificate and token live elsewhere).
 */
function claimSqliteStore(config: MasterConfig, file: string, locks: HeldLock[]): void {
  locks.push(lockSqliteStore(file));
  const marker = path.join(config.data_dir, 'store-location');
  // a shared tls_cert (a cluster's one identity) says nothing about whether this master ran before
  refuseLostStore(file, [path.join(config.pki_dir, 'master.crt'), config.token_file, marker], config.new_store);
  if (!existsSync(marker)) writeFileSync(marker, `sqlite:${file}\n`, { mode: 0o600 });
}

/** The API's TLS identity, if any; plain HTTP only on loopback unless api_insecure_http says so. */
function apiTls(config: MasterConfig): { cert: string; key: string } | undefined {
  if (config.api_tls_cert || config.api_tls_key) {
    const { cert, key } = configuredCertificate(config.api_tls_cert, config.api_tls_key, 'api_tls');
    return { cert, key };
  }
  const loopback = config.api_host === 'localhost' || config.api_host === '::1' || /^127\.\d+\.\d+\.\d+$/.test(config.api_host);
  if (!loopback && !config.api_insecure_http) throw masterErrors.make('BRINE_ERR_MASTER_API_INSECURE', { host: config.api_host });
  return undefined;
}

async function startLocked(config: MasterConfig, log: Logger, locks: HeldLock[]): Promise<Master> {
  setRenderTimeout(config.render_timeout);
  const apiIdentity = apiTls(config);
  const url = config.store ?? `sqlite:${path.join(config.data_dir, 'master.db')}`;
  if (url.startsWith('sqlite:')) claimSqliteStore(config, url.slice('sqlite:'.length), locks);
  const tls = await ensureCertificate(config.pki_dir, config.tls_cert, config.tls_key);
  // a typo in external_auth fails the start, not a user's call later
  checkExternalAuth(config.external_auth);
  const token = ensureToken(config.token_file);
  const store = await openStore({ url, ...(config.store_password_file ? { passwordFile: config.store_password_file } : {}) });
  store.onWriteError = (err, info) => log.error({ event: 'store_write_failed', code: (err as { code?: string }).code, ...info }, err.message);
  const clusterId = store.clustered ? (config.cluster_id ?? defaultClusterId()) : undefined;
  store.origin = clusterId ?? null;
  const pruned = await store.prune(config.keep_jobs_seconds);
  if (pruned.jobs || pruned.events) log.info(pruned, 'pruned old jobs and events');
  const events = new EventBus(store, (tag, err) => log.error({ event: 'event_lost', tag }, `event not stored: ${err.message}`));
  const keys = new KeyManager(store, events, keyAcceptance(config));

  const tops = await loadMasterTops(config.master_tops, config.master_tops_dirs);
  for (const e of tops.errors) log.error({ event: 'master_tops_error' }, e);
  const states = new StateService(config, tops, log);
  states.requirePool();
  const files = new FileServer(states.files, log);

  // the API URL is known once it listens; the link only publishes it with its heartbeats
  let apiUrlForCluster = '';
  const cluster = clusterId ? new ClusterLink(store, events, clusterId, () => apiUrlForCluster, log) : undefined;

  const { server, acceptor } = minionListener(config, tls);
  const hub = minionHub(server, config, { keys, store, clusterId, events, log, acceptor });
  const jobs = jobManager(config, await store.lastJid(), { store, hub, keys, events, log, cluster, states });
  const mine = mineService(config, { store, keys, hub, states });
  const checkTree = cluster ? treeCheck(store, states, cluster) : undefined;
  const metrics = new MasterMetrics(hub, events, states.git);
  const runners = masterRunners({ config, jobs, events, states, store, log });
  const reactor = startReactor(config, { store, events, states, jobs, keys, hub, log, masterId: clusterId ?? null, runRunner: runners.run });
  store.onWriteTime = (s) => metrics.storeWriteSeconds.observe(s);
  hub.requests = minionRequests({ states, files, hub, store, jobs, metrics, mine, events }, checkTree);
  const port = await listenMinionChannel(acceptor, server, hub, config, log);

  const { api, apiPort } = await listenApi(config, acceptor, {
    token,
    store,
    ...(cluster ? { cluster } : {}),
    keys,
    hub,
    jobs,
    events,
    log,
    fingerprint: tls.fingerprint,
    minionChannel: { interface: config.interface, port },
    states,
    files,
    metrics,
    mine,
    runners,
    ...(apiIdentity ? { tls: apiIdentity } : {}),
  });
  // started last: nothing after this can fail, so no failed start is kept alive by its threads
  // templates are untrusted: they render only on worker processes, never on this event loop
  const pool = new CompilePool(config, log, Math.max(1, config.compile_workers));
  states.usePool(pool);
  const apiUrl = `${apiIdentity ? 'https' : 'http'}://${config.api_host.includes(':') ? `[${config.api_host}]` : config.api_host}:${apiPort}`;
  apiUrlForCluster = apiUrl;
  await cluster?.start();

  const timers = startTimers(store, config, log, runners.run);

  logReady(log, config, { port, apiPort, apiUrl, fingerprint: tls.fingerprint });

  const close = closer({ ...timers, jobs, hub, cluster, api, server, acceptor, store, pool, log, reactor });
  return {
    config,
    store,
    ...(cluster ? { cluster } : {}),
    hub,
    jobs,
    runRunner: runners.run,
    keys,
    events,
    states,
    files,
    api,
    port,
    apiPort,
    apiUrl,
    fingerprint: tls.fingerprint,
    token,
    close,
  };
}

/** The mine, read from the store; renders on this master answer their `mine.get` calls from it. */
function mineService(config: MasterConfig, d: { store: StoreBackend; keys: KeyManager; hub: MinionHub; states: StateService }): MineService {
  const mine = new MineService({
    store: d.store,
    acceptedIds: () => d.keys.acceptedIds(),
    grainsOf: (id) => d.hub.grainsOf(id),
    pillarOf: async (id, grains) => (await d.states.pillar(id, grains)).pillar,
    nodegroups: config.nodegroups,
  });
  d.states.useMine((id, calls) => mine.answer(calls, id, true));
  return mine;
}

/** What the master answers a minion's requests with (compiles, files, pillar, `brine call` jobs). */
function minionRequests(
  d: {
    states: StateService;
    files: FileServer;
    hub: MinionHub;
    store: StoreBackend;
    jobs: JobManager;
    metrics: MasterMetrics;
    mine: MineService;
    events: EventBus;
  },
  checkTree: ReturnType<typeof treeCheck> | undefined,
): MinionHub['requests'] {
  return requestHandler({
    states: d.states,
    files: d.files,
    hub: d.hub,
    isExpected: (jid, minion) => d.store.isExpected(jid, minion),
    recordCall: (minion, fun, arg, kwarg, schedule) => d.jobs.recordCall(minion, fun, arg, kwarg, schedule),
    ...(checkTree ? { checkTree } : {}),
    onCompile: (s) => d.metrics.compileSeconds.observe(s),
    onPlanned: (jid, minion, n) => d.jobs.planned(jid, minion, n),
    mine: d.mine,
    fireEvent: (tag, data, once) => d.events.fire(tag, data, once),
  });
}

type ApiParts = Omit<ApiDeps, 'defaultTimeout' | 'metricsPublic' | 'apiHost' | 'allowedHosts' | 'tokenFile'>;

/** Builds the operator API and listens; a port that cannot be had closes the minion channel. */
async function listenApi(config: MasterConfig, acceptor: MinionAcceptor, parts: ApiParts): Promise<{ api: FastifyInstance; apiPort: number }> {
  const api = await buildApi({
    ...parts,
    accounts: new Accounts({
      store: parts.store.accounts,
      bootstrapToken: parts.token,
      externalAuth: config.external_auth,
      ldap: ldapOptions(config),
      maxTtlSeconds: config.token_expire,
    }),
    defaultTimeout: config.timeout,
    metricsPublic: config.metrics_public,
    apiHost: config.api_host,
    allowedHosts: config.api_allowed_hosts,
    tokenFile: config.token_file,
  });
  try {
    await api.listen({ host: config.api_host, port: config.api_port });
  } catch (err) {
    acceptor.close();
    throw listenError(err, 'operator API', config.api_host, config.api_port, 'api_port');
  }
  return { api, apiPort: (api.server.address() as AddressInfo).port };
}

/** The master's close(): stops taking work, then closes each part (once). */
function closer(p: {
  retention: NodeJS.Timeout;
  schedule: ScheduleEngine;
  jobs: JobManager;
  hub: MinionHub;
  cluster: ClusterLink | undefined;
  api: FastifyInstance;
  server: HttpsServer | HttpServer;
  acceptor: MinionAcceptor;
  store: StoreBackend;
  pool: CompilePool;
  log: Logger;
  reactor: Reactor;
}): () => Promise<void> {
  const { retention, schedule, jobs, hub, cluster, api, server, acceptor, store, pool, log, reactor } = p;
  let closed = false;
  return async () => {
    if (closed) return;
    closed = true;
    clearInterval(retention);
    schedule.stop();
    await reactor.close();
    jobs.close();
    hub.close();
    await cluster?.close();
    await api.close();
    await new Promise<void>((resolve) => acceptor.close(() => resolve()));
    server.close();
    await store.close();
    await pool.close();
    log.info({ event: 'master_stopped' }, 'master stopped');
  };
}

/** The minion channel's hub on the minion port's server, with its limits from the config. */
function minionHub(
  server: HttpsServer | HttpServer,
  config: MasterConfig,
  d: { keys: KeyManager; store: StoreBackend; clusterId: string | undefined; events: EventBus; log: Logger; acceptor: MinionAcceptor },
): MinionHub {
  const { keys, store, clusterId, events, log, acceptor } = d;
  return new MinionHub(server, {
    acceptor,
    keys,
    store,
    ...(clusterId ? { clusterId } : {}),
    events,
    log,
    maxFrameBytes: config.max_frame_bytes,
    pingInterval: config.ping_interval,
    hostCallTimeout: config.host_call_timeout,
    maxAdmitting: config.max_admitting,
    reconnectRate: config.reconnect_rate,
    unauth: {
      authTimeout: config.auth_timeout,
      maxTotal: config.max_unauthenticated,
      maxPerAddress: config.max_unauthenticated_per_address,
      maxFrameBytes: config.auth_max_frame_bytes,
    },
  });
}

// in a cluster a job carries the hash of the trees it was published with: a master serving
// other trees refuses to compile it rather than apply different states
function treeCheck(store: StoreBackend, states: StateService, cluster: ClusterLink): (jid: string) => Promise<void> {
  return async (jid: string) => {
    const job = await store.getJob(jid);
    if (!job?.tree_hash) return;
    const have = await states.treeHash(jid);
    if (have !== job.tree_hash)
      throw masterErrors.make('BRINE_ERR_MASTER_TREE_MISMATCH', { jid, master: cluster.id, want: job.tree_hash.slice(0, 12), have: have.slice(0, 12) });
  };
}

type Channel = { server: HttpsServer | HttpServer; acceptor: MinionAcceptor };

/**
 * The minion port's servers: a TCP server that leaves each connection unread until the guard
 * gives it its turn, handing it to the TLS server; or, with `tls_thread`, the TLS thread,
 * handing plain connections to an HTTP server. Returning minions resume their TLS session: no
 * certificate signature in a reconnect storm.
 */
function minionListener(config: MasterConfig, tls: { cert: string; key: string }): Channel {
  const tickets = ticketKeys(config.pki_dir);
  if (config.tls_thread) {
    const acceptor = new TlsThread({
      cert: tls.cert,
      key: tls.key,
      ticketKeys: tickets,
      sessionTimeout: TLS_SESSION_SECONDS,
      exporterLabel: EXPORTER_LABEL,
      handshakeTimeoutMs: config.auth_timeout * 1000,
      maxHandshakes: config.max_unauthenticated,
      maxPerAddress: config.max_unauthenticated_per_address,
    });
    return { server: createHttpServer(), acceptor };
  }
  const server = createServer({ cert: tls.cert, key: tls.key, minVersion: 'TLSv1.3', ticketKeys: tickets, sessionTimeout: TLS_SESSION_SECONDS });
  return { server, acceptor: createNetServer({ pauseOnConnect: true }) };
}

/** Listens for minions (WebSocket on /ws only); the port bound. */
async function listenMinionChannel(
  acceptor: MinionAcceptor,
  server: HttpsServer | HttpServer,
  hub: MinionHub,
  config: MasterConfig,
  log: Logger,
): Promise<number> {
  server.on('request', (_req, res) => {
    res.writeHead(426, { 'content-type': 'text/plain' });
    res.end('the minion channel speaks WebSocket on /ws\n');
  });
  // ws re-emits the server's errors on the WebSocketServer: the listen error is handled below
  hub.wss.on('error', (err) => log.debug({ err }, 'minion channel server error'));
  await new Promise<void>((resolve, reject) => {
    acceptor.once('error', (err) => reject(listenError(err, 'minion channel', config.interface, config.port, 'port')));
    // Node's default backlog (511) overflows when a fleet reconnects at once: SYNs dropped, retried seconds later
    acceptor.listen({ port: config.port, host: config.interface, backlog: config.listen_backlog }, () => resolve());
  });
  // after the listen: a failed accept (out of file descriptors) is logged, the master stays up
  acceptor.on('error', (err) => log.warn({ event: 'minion_accept_failed', err: err.message }, 'accepting a minion connection failed'));
  if (acceptor instanceof TlsThread)
    acceptor.on('restart', (code: number) =>
      log.error({ event: 'tls_thread_restarted', code }, `the minion channel's TLS thread stopped (exit code ${code}): started again, its minions reconnect`),
    );
  const port = (acceptor.address() as AddressInfo).port;
  return port;
}

/** What the master does by the clock: prune old jobs, run its `schedule`. */
function startTimers(store: StoreBackend, config: MasterConfig, log: Logger, runRunner: RunRunner): { retention: NodeJS.Timeout; schedule: ScheduleEngine } {
  return { retention: pruneOldJobs(store, config, log), schedule: startMasterSchedule({ schedule: config.schedule, log, runRunner }) };
}

/** Prunes old jobs and events now and then (at most hourly, at least every minute). */
function pruneOldJobs(store: StoreBackend, config: MasterConfig, log: Logger): NodeJS.Timeout {
  const retention = setInterval(
    () => {
      store.accounts
        .prune(config.keep_jobs_seconds)
        .catch((err: unknown) => log.error({ event: 'store_prune_failed', err: (err as Error).message }, 'pruning the audit trail failed'));
      store
        .pruneReactions(config.keep_jobs_seconds)
        .catch((err: unknown) => log.error({ event: 'store_prune_failed', err: (err as Error).message }, 'pruning reactions failed'));
      store.prune(config.keep_jobs_seconds).then(
        (r) => {
          if (r.jobs || r.events) log.info(r, 'pruned old jobs and events');
        },
        (err: unknown) => log.error({ event: 'store_prune_failed', err: (err as Error).message }, 'pruning old jobs failed'),
      );
    },
    Math.min(3600, Math.max(60, config.keep_jobs_seconds / 10)) * 1000,
  );
  retention.unref();
  return retention;
}

/** How new minion keys are accepted, from the config. */
function keyAcceptance(config: MasterConfig): ConstructorParameters<typeof KeyManager>[2] {
  return {
    autoAccept: config.auto_accept,
    autosign: config.autosign,
    autosignNetworks: config.autosign_networks,
    newKeysPerMinute: config.new_keys_per_minute,
    newKeysPerMinuteTotal: config.new_keys_per_minute_total,
  };
}

/** Says where minions and operators reach the master. */
function logReady(log: Logger, config: MasterConfig, at: { port: number; apiPort: number; apiUrl: string; fingerprint: string }): void {
  const { port, apiPort, apiUrl, fingerprint } = at;
  log.info(
    { event: 'master_ready', port, api_port: apiPort, api_url: apiUrl, fingerprint, data_dir: config.data_dir },
    `master ready: minions connect to ${config.interface}:${port} (certificate fingerprint ${fingerprint}); ` +
      `operator API at ${apiUrl}, token in ${config.token_file}`,
  );
}

/** The job manager: publishing, targeting (nodegroups, pillar) and waiting for returns. */
function jobManager(
  config: MasterConfig,
  lastJid: string | null,
  d: { store: StoreBackend; hub: MinionHub; keys: KeyManager; events: EventBus; log: Logger; cluster: ClusterLink | undefined; states: StateService },
): JobManager {
  const { store, hub, keys, events, log, cluster, states } = d;
  return new JobManager({
    store,
    lastJid,
    hub,
    keys,
    events,
    log,
    nodegroups: config.nodegroups,
    defaultTimeout: config.timeout,
    ...(cluster ? { cluster, treeHash: (jid: string) => states.treeHash(jid) } : {}),
    pillarOf: async (id, grains, jid) => (await states.pillar(id, grains, jid)).pillar,
  });
}
