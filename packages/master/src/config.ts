import { BlockList, isIP } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { LOG_LEVEL_NAMES, loadOptions, loggerLevel, parseScheduleItem, SCHEDULE_GLOBAL_KEYS, unknownOptions } from '@brine/core';
import type { CategorySpec } from '@brine/bindings';
import { absRemotePaths } from '@brine/fileserver';
import { masterErrors } from './errors.js';
import { refuseStorePassword } from './store-location.js';

/** Options of `brine master`; see config/master.yaml for what each one means. */
export interface MasterConfig {
  interface: string;
  port: number;
  api_host: string;
  api_port: number;
  data_dir: string;
  pki_dir: string;
  token_file: string;
  tls_cert: string | null;
  tls_key: string | null;
  /** The store: sqlite:PATH (default <data_dir>/master.db) or postgres://USER@HOST:PORT/DB for a cluster. */
  store: string | null;
  /** A file holding the PostgreSQL password (else the BRINE_STORE_PASSWORD environment variable). */
  store_password_file: string | null;
  /** This master's name in a cluster (default: host name and API port). */
  cluster_id: string | null;
  /** Serve /metrics without the API token (for a Prometheus on a trusted network). */
  metrics_public: boolean;
  auto_accept: boolean;
  autosign: string[];
  autosign_networks: string[];
  nodegroups: Record<string, string | string[]>;
  keep_jobs_seconds: number;
  timeout: number;
  max_frame_bytes: number;
  /** Seconds a connection has to authenticate before the master closes it. */
  auth_timeout: number;
  /** Connections waiting to authenticate, at most, in total and from one source address. */
  max_unauthenticated: number;
  max_unauthenticated_per_address: number;
  /** Largest frame heard before a connection authenticates. */
  auth_max_frame_bytes: number;
  /** Hellos that may add a key row per minute from one source address (a token bucket; the rest wait). */
  new_keys_per_minute: number;
  /** The same from all sources together. */
  new_keys_per_minute_total: number;
  /** Refuse pillar top targets that read what a minion asserts (grains, pillar, IP). */
  pillar_safe_matchers_only: boolean;
  ping_interval: number;
  /** Connections the kernel holds waiting for accept on the minion port (capped by net.core.somaxconn). */
  listen_backlog: number;
  /** The minion channel's TLS (handshakes, record crypto) in a thread of its own, off the event loop. */
  tls_thread: boolean;
  /** Minions being admitted at once (connected, not yet authenticated); more are told to come back later. */
  max_admitting: number;
  /** Minions a second the master expects to readmit after a restart: the welcome's reconnect window is connected / this. */
  reconnect_rate: number;
  log_level: string;
  file_roots: Record<string, string[]>;
  pillar_roots: Record<string, string[]>;
  top_file_merging_strategy: 'merge' | 'same' | 'merge_all';
  env_order: string[];
  default_top: string;
  state_top: string;
  pillar_merge_lists: boolean;
  master_tops: Record<string, unknown>;
  master_tops_dirs: string[];
  compile_cache_size: number;
  /** Memory bound of each compile cache, in MiB (an estimate from the chunks it holds). */
  compile_cache_mb: number;
  /** Seconds a minion has to answer the host calls of its compile (cmd.has_exec, user.info, ...). */
  host_call_timeout: number;
  /** Seconds one template may render before its compile fails (a loop that does not end). */
  render_timeout: number;
  /** Compile worker processes (default: one per core; at least one: templates never render on the event loop). */
  compile_workers: number;
  /** The heap limit of one compile worker, in MiB. */
  compile_worker_memory_mb: number;
  /** Structured bindings, per layer (site above modules); see packages/bindings. */
  bindings_roots: { site?: string[]; modules?: string[] };
  /** Binding categories, highest precedence first (names or {name, from|value}). */
  bindings_categories: CategorySpec[];
  /** Begin a new SQLite store where an earlier one is missing (`brine master --new-store`). */
  new_store: boolean;
  /** The operator API (and console) over HTTPS: a certificate and its key, PEM. */
  api_tls_cert: string | null;
  api_tls_key: string | null;
  /** For the CLI: the CA (PEM) that signed api_tls_cert; default: api_tls_cert itself and the system CAs. */
  api_tls_ca: string | null;
  /** Serve the API over plain HTTP on a non-loopback api_host (behind a TLS proxy). */
  api_insecure_http: boolean;
  /** Host names the API answers to beyond IP addresses, localhost, this host's name and api_host. */
  api_allowed_hosts: string[];
  /** Salt's master-side `schedule`: runner functions (state.orchestrate) run on a timetable. */
  schedule: Record<string, unknown>;
  /** Tree backends in precedence order: roots, gitfs (Salt's fileserver_backend). */
  fileserver_backend: string[];
  /** gitfs: the remotes (a URL or {URL: [params]}), and the defaults of their params. */
  gitfs_remotes: unknown[];
  gitfs_base: string | null;
  gitfs_root: string;
  gitfs_mountpoint: string;
  gitfs_ssl_verify: boolean;
  gitfs_saltenv: unknown[];
  /** Seconds between fetches of the git remotes (gitfs and git_pillar). */
  gitfs_update_interval: number;
  /** External pillar sources (`- git: [...]`), merged over the pillar roots' pillar. */
  ext_pillar: unknown[];
  /** The keyring (a gpg home) that decrypts `#!...|gpg` pillar values; default <data_dir>/gpgkeys. */
  gpg_keydir: string;
  /** Whether `#!mjs` SLS files render (tree authors' JavaScript, each render a confined process that can still reach the network). */
  mjs_renderer: boolean;
  // ---- the reactor (issue 25) ----
  /** Salt's `reactor:`: a list of `{tag glob: [reactor SLS files]}` (absolute paths or salt://). */
  reactor: Array<Record<string, string | string[]>>;
  /** Reactions one event may cause in a chain (an event caused by a reaction's job is one deeper). */
  reactor_max_depth: number;
  /** Reactions one rule may start per minute on this master; more are dropped and logged. */
  reactor_rate: number;
  /** Salt's order of pillar sources: ext_pillar before the pillar roots' (true) or after (false). */
  ext_pillar_first: boolean;
  /** How pillar sources merge: smart (recurse), recurse, aggregate, overwrite, none. */
  pillar_source_merging_strategy: string;
  /** Seconds an ext_pillar command or query may take for one minion. */
  ext_pillar_timeout: number;
  /** The `postgres` ext_pillar's connection: host, port, user, db, pass_file. */
  postgres: Record<string, unknown>;
  /** The `mysql` ext_pillar's connection: host, port, user, db, pass_file, unix_socket. */
  mysql: Record<string, unknown>;
  // ---- accounts (issue 27) ----
  /** Salt's external_auth: {local|ldap: {user or 'group%': [permissions]}}. */
  external_auth: Record<string, unknown>;
  /** Salt's auth.ldap.* options (server, port, basedn, binddn with {{ username }}, bindpw, filter, groupou, groupclass, accountattributename). */
  'auth.ldap.server': string;
  'auth.ldap.port': number;
  'auth.ldap.tls': boolean;
  'auth.ldap.basedn': string;
  'auth.ldap.binddn': string;
  'auth.ldap.bindpw': string;
  'auth.ldap.filter': string;
  'auth.ldap.groupou': string;
  'auth.ldap.groupclass': string;
  'auth.ldap.accountattributename': string;
  /** Longest lifetime of a user's API token, in seconds (Salt's token_expire). */
  token_expire: number;
}

export const MASTER_DEFAULTS: MasterConfig = {
  interface: '0.0.0.0',
  port: 4506,
  api_host: '127.0.0.1',
  api_port: 4507,
  data_dir: '/var/lib/brine/master',
  pki_dir: '',
  token_file: '',
  tls_cert: null,
  tls_key: null,
  store: null,
  store_password_file: null,
  cluster_id: null,
  metrics_public: false,
  auto_accept: false,
  autosign: [],
  autosign_networks: [],
  nodegroups: {},
  keep_jobs_seconds: 86400,
  timeout: 5,
  max_frame_bytes: 1024 * 1024,
  auth_timeout: 10,
  max_unauthenticated: 4096,
  max_unauthenticated_per_address: 256,
  auth_max_frame_bytes: 16384,
  new_keys_per_minute: 60,
  new_keys_per_minute_total: 600,
  pillar_safe_matchers_only: false,
  ping_interval: 30,
  listen_backlog: 8192,
  tls_thread: true,
  max_admitting: 3000,
  reconnect_rate: 500,
  log_level: 'info',
  file_roots: { base: ['/srv/salt'] },
  pillar_roots: { base: ['/srv/pillar'] },
  top_file_merging_strategy: 'merge',
  env_order: [],
  default_top: 'base',
  state_top: 'top.sls',
  pillar_merge_lists: false,
  master_tops: {},
  master_tops_dirs: [],
  compile_cache_size: 1024,
  compile_cache_mb: 256,
  host_call_timeout: 60,
  render_timeout: 30,
  compile_workers: os.availableParallelism(),
  compile_worker_memory_mb: 1024,
  bindings_roots: { site: [], modules: [] },
  bindings_categories: ['node', 'environment', 'osfamily', 'common'],
  new_store: false,
  api_tls_cert: null,
  api_tls_key: null,
  api_tls_ca: null,
  api_insecure_http: false,
  api_allowed_hosts: [],
  schedule: {},
  fileserver_backend: ['roots'],
  gitfs_remotes: [],
  gitfs_base: null,
  gitfs_root: '',
  gitfs_mountpoint: '',
  gitfs_ssl_verify: true,
  gitfs_saltenv: [],
  gitfs_update_interval: 60,
  ext_pillar: [],
  gpg_keydir: '',
  mjs_renderer: false,
  reactor: [],
  reactor_max_depth: 4,
  reactor_rate: 60,
  ext_pillar_first: false,
  pillar_source_merging_strategy: 'smart',
  ext_pillar_timeout: 30,
  postgres: {},
  mysql: {},
  external_auth: {},
  'auth.ldap.server': 'localhost',
  'auth.ldap.port': 389,
  'auth.ldap.tls': false,
  'auth.ldap.basedn': '',
  'auth.ldap.binddn': '',
  'auth.ldap.bindpw': '',
  'auth.ldap.filter': 'uid={{ username }}',
  'auth.ldap.groupou': 'Groups',
  'auth.ldap.groupclass': 'posixGroup',
  'auth.ldap.accountattributename': 'memberUid',
  token_expire: 43200,
};

const KINDS: Record<keyof MasterConfig, string> = {
  interface: 'string',
  port: 'number',
  api_host: 'string',
  api_port: 'number',
  data_dir: 'string',
  pki_dir: 'string',
  token_file: 'string',
  tls_cert: 'string?',
  tls_key: 'string?',
  store: 'string?',
  store_password_file: 'string?',
  cluster_id: 'string?',
  metrics_public: 'boolean',
  auto_accept: 'boolean',
  autosign: 'string[]',
  autosign_networks: 'string[]',
  nodegroups: 'object',
  keep_jobs_seconds: 'number',
  timeout: 'number',
  max_frame_bytes: 'number',
  auth_timeout: 'number',
  max_unauthenticated: 'number',
  max_unauthenticated_per_address: 'number',
  auth_max_frame_bytes: 'number',
  new_keys_per_minute: 'number',
  new_keys_per_minute_total: 'number',
  pillar_safe_matchers_only: 'boolean',
  ping_interval: 'number',
  listen_backlog: 'number',
  tls_thread: 'boolean',
  max_admitting: 'number',
  reconnect_rate: 'number',
  log_level: 'string',
  file_roots: 'roots',
  pillar_roots: 'roots',
  top_file_merging_strategy: 'strategy',
  env_order: 'string[]',
  default_top: 'string',
  state_top: 'string',
  pillar_merge_lists: 'boolean',
  master_tops: 'object',
  master_tops_dirs: 'string[]',
  compile_cache_size: 'number',
  compile_cache_mb: 'number',
  host_call_timeout: 'number',
  render_timeout: 'number',
  compile_workers: 'number',
  compile_worker_memory_mb: 'number',
  bindings_roots: 'layers',
  bindings_categories: 'categories',
  new_store: 'boolean',
  api_tls_cert: 'string?',
  api_tls_key: 'string?',
  api_tls_ca: 'string?',
  api_insecure_http: 'boolean',
  api_allowed_hosts: 'string[]',
  schedule: 'object',
  fileserver_backend: 'string[]',
  gitfs_remotes: 'list',
  gitfs_base: 'string?',
  gitfs_root: 'string',
  gitfs_mountpoint: 'string',
  gitfs_ssl_verify: 'boolean',
  gitfs_saltenv: 'list',
  gitfs_update_interval: 'number',
  ext_pillar: 'list',
  gpg_keydir: 'string',
  mjs_renderer: 'boolean',
  reactor: 'reactor',
  reactor_max_depth: 'number',
  reactor_rate: 'number',
  ext_pillar_first: 'boolean',
  pillar_source_merging_strategy: 'string',
  ext_pillar_timeout: 'number',
  postgres: 'object',
  mysql: 'object',
  external_auth: 'object',
  'auth.ldap.server': 'string',
  'auth.ldap.port': 'number',
  'auth.ldap.tls': 'boolean',
  'auth.ldap.basedn': 'string',
  'auth.ldap.binddn': 'string',
  'auth.ldap.bindpw': 'string',
  'auth.ldap.filter': 'string',
  'auth.ldap.groupou': 'string',
  'auth.ldap.groupclass': 'string',
  'auth.ldap.accountattributename': 'string',
  token_expire: 'number',
};

const KIND_TEXT: Record<string, string> = {
  layers: '{site: [dirs], modules: [dirs]}',
  categories: 'a list of category names or {name, from} / {name, value} entries',
  list: 'a list',
  reactor: "a list of {'tag glob': [reactor SLS files]}",
};

/** Salt master options whose silent absence would leave the master less guarded than its operator believes. */
const REFUSED_SALT_OPTIONS: Record<string, string> = {
  user: 'the master would run as the user starting it, not this one',
  publisher_acl: 'every holder of the API token may run everything',
  publisher_acl_blacklist: 'every holder of the API token may run everything',
  client_acl: 'every holder of the API token may run everything',
  client_acl_blacklist: 'every holder of the API token may run everything',
  sign_pub_messages: 'published jobs would not be signed as configured',
  master_sign_pubkey: "the master's public key would not be signed as configured",
};

/** The master's own option kinds, beside the common ones core checks. */
function masterKind(kind: string, v: unknown): boolean | undefined {
  switch (kind) {
    case 'roots':
      return (
        typeof v === 'object' && v !== null && !Array.isArray(v) && Object.values(v).every((d) => Array.isArray(d) && d.every((x) => typeof x === 'string'))
      );
    case 'layers':
      return (
        typeof v === 'object' &&
        v !== null &&
        !Array.isArray(v) &&
        Object.entries(v).every(([k, d]) => (k === 'site' || k === 'modules') && Array.isArray(d) && d.every((x) => typeof x === 'string'))
      );
    case 'categories':
      return (
        Array.isArray(v) && v.every((c) => typeof c === 'string' || (typeof c === 'object' && c !== null && typeof (c as { name?: unknown }).name === 'string'))
      );
    case 'strategy':
      return v === 'merge' || v === 'same' || v === 'merge_all';
    case 'list':
      return Array.isArray(v);
    case 'reactor':
      return Array.isArray(v) && v.every(reactorRuleShape);
  }
  return undefined;
}

const isGitPillar = (e: unknown): e is { git: unknown[] } => typeof e === 'object' && e !== null && Array.isArray((e as { git?: unknown }).git);

/** One `reactor:` entry: a single tag glob naming a file or a list of files. */
function reactorRuleShape(r: unknown): boolean {
  if (typeof r !== 'object' || r === null || Array.isArray(r) || Object.keys(r).length !== 1) return false;
  const files = Object.values(r)[0];
  return typeof files === 'string' || (Array.isArray(files) && files.every((f) => typeof f === 'string'));
}

/**
 * `autosign_networks` (`10.0.0.0/8`, `fd00::/8`, a bare address) as one BlockList; an entry that
 * is not a network is a config error.
 */
export function parseNetworks(cidrs: string[], file = '-'): BlockList {
  const list = new BlockList();
  for (const cidr of cidrs) {
    const [addr, bits, extra] = cidr.split('/');
    const v = isIP(addr ?? '');
    const max = v === 6 ? 128 : 32;
    if (!v || extra !== undefined || (bits !== undefined && !(/^\d+$/.test(bits) && Number(bits) <= max))) {
      throw masterErrors.make('BRINE_ERR_MASTER_CONFIG', { file, detail: `autosign_networks: '${cidr}' is not a network like 10.0.0.0/8` });
    }
    list.addSubnet(addr!, bits === undefined ? max : Number(bits), v === 4 ? 'ipv4' : 'ipv6');
  }
  return list;
}

/**
 * Builds the master config from defaults and an optional YAML file. Relative paths are taken
 * from the config file's folder, so a checkout-local config works from any cwd.
 */
export function loadMasterConfig(file?: string, overrides: Partial<MasterConfig> = {}, warn: (event: string, msg: string) => void = () => {}): MasterConfig {
  const fail = (f: string, detail: string) => masterErrors.make('BRINE_ERR_MASTER_CONFIG', { file: f, detail });
  const base = file ? path.dirname(path.resolve(file)) : process.cwd();
  const merged = loadOptions({
    ...(file ? { file } : {}),
    defaults: MASTER_DEFAULTS,
    overrides,
    kinds: KINDS,
    extraKind: masterKind,
    kindText: KIND_TEXT,
    fail,
    unknown: (keys) => {
      const r = unknownOptions(keys, Object.keys(KINDS), REFUSED_SALT_OPTIONS, file ?? '-');
      if (r.refuse) throw fail(file ?? '-', r.refuse);
      warn('config_unknown_options', r.warn);
    },
  });
  const cfg = merged as unknown as MasterConfig;
  const level = loggerLevel(cfg.log_level);
  if (!level) throw fail(file ?? '-', `log_level '${cfg.log_level}' is not a log level (one of ${LOG_LEVEL_NAMES.join(', ')})`);
  cfg.log_level = level;
  parseNetworks(cfg.autosign_networks, file);
  for (const [name, raw] of Object.entries(cfg.schedule)) {
    if (SCHEDULE_GLOBAL_KEYS.includes(name)) continue;
    try {
      parseScheduleItem(name, raw, file ?? '-');
    } catch (err) {
      throw fail(file ?? '-', (err as Error).message);
    }
  }
  const abs = (p: string) => path.resolve(base, p);
  cfg.data_dir = abs(cfg.data_dir);
  cfg.pki_dir = cfg.pki_dir ? abs(cfg.pki_dir) : path.join(cfg.data_dir, 'pki');
  cfg.token_file = cfg.token_file ? abs(cfg.token_file) : path.join(cfg.data_dir, 'api_token');
  cfg.gpg_keydir = cfg.gpg_keydir ? abs(cfg.gpg_keydir) : path.join(cfg.data_dir, 'gpgkeys');
  if (cfg.tls_cert) cfg.tls_cert = abs(cfg.tls_cert);
  if (cfg.tls_key) cfg.tls_key = abs(cfg.tls_key);
  if (cfg.store_password_file) cfg.store_password_file = abs(cfg.store_password_file);
  for (const k of ['api_tls_cert', 'api_tls_key', 'api_tls_ca'] as const) if (cfg[k]) cfg[k] = abs(cfg[k]);
  if (cfg.store) refuseStorePassword(cfg.store, ` (master config ${file ?? '-'})`);
  if (cfg.store?.startsWith('sqlite:')) cfg.store = `sqlite:${abs(cfg.store.slice('sqlite:'.length))}`;
  const absRoots = (r: Record<string, string[]>) => Object.fromEntries(Object.entries(r).map(([env, dirs]) => [env, dirs.map(abs)]));
  cfg.file_roots = absRoots(cfg.file_roots);
  cfg.pillar_roots = absRoots(cfg.pillar_roots);
  cfg.master_tops_dirs = cfg.master_tops_dirs.map(abs);
  cfg.bindings_roots = {
    site: (cfg.bindings_roots.site ?? []).map(abs),
    modules: (cfg.bindings_roots.modules ?? []).map(abs),
  };
  cfg.gitfs_remotes = cfg.gitfs_remotes.map((e) => absRemotePaths(e, abs));
  cfg.ext_pillar = cfg.ext_pillar.map((e) => (isGitPillar(e) ? { git: e.git.map((r) => absRemotePaths(r, abs)) } : e));
  if (typeof cfg.postgres.pass_file === 'string') cfg.postgres = { ...cfg.postgres, pass_file: abs(cfg.postgres.pass_file) };
  if (typeof cfg.mysql.pass_file === 'string') cfg.mysql = { ...cfg.mysql, pass_file: abs(cfg.mysql.pass_file) };
  return cfg;
}
