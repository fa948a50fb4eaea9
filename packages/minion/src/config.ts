import { checkJsonBounds, isValidMinionId, MAX_DATA_DEPTH, MAX_GRAINS_BYTES } from '@brine/protocol';
import os from 'node:os';
import path from 'node:path';
import { LOG_LEVEL_NAMES, loadOptions, loggerLevel, parseScheduleItem, SCHEDULE_GLOBAL_KEYS, unknownOptions } from '@brine/core';
import { minionErrors } from './errors.js';
import { parseMasters, type MasterAddress } from './master-list.js';

/** Options of `brine minion`; see config/minion.yaml for what each one means. */
export interface MinionConfig {
  id: string;
  /** One master, or several for failover (round robin); see `masters` for the parsed list. */
  master: string | string[];
  master_port: number;
  master_finger: string | null;
  data_dir: string;
  pki_dir: string;
  grains: Record<string, unknown>;
  acceptance_wait_time: number;
  recon_default: number;
  recon_max: number;
  recon_randomize: boolean;
  max_concurrent_jobs: number;
  max_frame_bytes: number;
  /** Largest state result or return sent as is (Salt's max_event_size); larger ones are trimmed. */
  max_event_size: number;
  log_level: string;
  // ---- the mine ----
  /** Salt's mine_functions: function (or alias) -> its arguments; the pillar's entries go over these. */
  mine_functions: Record<string, unknown>;
  /** Minutes between pushes of mine_functions (Salt's default, 60); 0 pushes only at start and on mine.update. */
  mine_interval: number;
  /** Salt's `schedule`: jobs this minion runs on its own (see @brine/core's schedule engine). */
  schedule: Record<string, unknown>;
  /** `master` parsed: the masters in the order the minion tries them (not an option itself). */
  masters: MasterAddress[];
}

type MinionOptions = Omit<MinionConfig, 'masters'>;

export const MINION_DEFAULTS: Omit<MinionOptions, 'id'> & { id: string | null } = {
  id: null,
  master: 'salt',
  master_port: 4506,
  master_finger: null,
  data_dir: '/var/lib/brine/minion',
  pki_dir: '',
  grains: {},
  acceptance_wait_time: 10,
  recon_default: 1,
  recon_max: 30,
  recon_randomize: true,
  max_concurrent_jobs: 8,
  max_frame_bytes: 1024 * 1024,
  max_event_size: 1048576,
  log_level: 'info',
  mine_functions: {},
  mine_interval: 60,
  schedule: {},
};

const KINDS: Record<keyof MinionOptions, string> = {
  id: 'string?',
  master: 'masters',
  master_port: 'number',
  master_finger: 'string?',
  data_dir: 'string',
  pki_dir: 'string',
  grains: 'object',
  acceptance_wait_time: 'number',
  recon_default: 'number',
  recon_max: 'number',
  recon_randomize: 'boolean',
  max_concurrent_jobs: 'number',
  max_frame_bytes: 'number',
  max_event_size: 'number',
  log_level: 'string',
  mine_functions: 'object',
  mine_interval: 'number',
  schedule: 'object',
};

/** Salt minion options whose silent absence would leave the host less guarded than its operator believes. */
const REFUSED_SALT_OPTIONS: Record<string, string> = {
  user: 'the minion would run as the user starting it, not this one',
  sudo_user: 'functions would run as the minion user, not through sudo',
  disable_modules: 'the modules named would stay callable',
  whitelist_modules: 'every module would stay callable',
  cmd_blacklist_glob: 'the commands named would stay runnable',
  cmd_whitelist_glob: 'every command would stay runnable',
  verify_master_pubkey_sign: "the master's key signature would not be checked (Brine pins master_finger instead)",
  always_verify_signature: "the master's key signature would not be checked (Brine pins master_finger instead)",
};

/** A warning the config asks to log once the logger exists (it takes its level from the config). */
export type ConfigWarn = (event: string, msg: string) => void;

/** Room the collected grains take beside the custom ones, within the master's limit. */
const COLLECTED_GRAINS_BYTES = 32 * 1024;

/** The master refuses grains past the protocol's bounds: custom grains that would be are refused now, naming the file. */
function checkGrains(grains: Record<string, unknown>, file: string): void {
  const p = checkJsonBounds(grains, 'grains', MAX_DATA_DEPTH, MAX_GRAINS_BYTES - COLLECTED_GRAINS_BYTES);
  if (!p) return;
  const detail =
    p.kind === 'depth'
      ? `grains are nested more than ${p.limit} levels deep (at ${p.at}): the master refuses them`
      : `grains hold about ${p.size} bytes of JSON, more than the ${p.limit} the master accepts beside the collected grains`;
  throw minionErrors.make('BRINE_ERR_MINION_CONFIG', { file, detail });
}

/** A schedule entry that cannot run is refused at start, naming the file and the entry. */
function checkSchedule(schedule: Record<string, unknown>, file: string): void {
  for (const [name, raw] of Object.entries(schedule)) {
    if (SCHEDULE_GLOBAL_KEYS.includes(name)) continue;
    try {
      parseScheduleItem(name, raw, file);
    } catch (err) {
      throw minionErrors.make('BRINE_ERR_MINION_CONFIG', { file, detail: (err as Error).message });
    }
  }
}

/** Defaults, then the YAML file, then overrides; relative paths are from the file's folder. */
export function loadMinionConfig(file?: string, overrides: Partial<MinionOptions> = {}, warn: ConfigWarn = () => {}): MinionConfig {
  const fail = (f: string, detail: string) => minionErrors.make('BRINE_ERR_MINION_CONFIG', { file: f, detail });
  const merged = loadOptions({
    ...(file ? { file } : {}),
    defaults: MINION_DEFAULTS,
    overrides,
    kinds: KINDS,
    // each entry is checked by parseMasters, which names the bad one
    extraKind: (kind, v) => (kind === 'masters' ? typeof v === 'string' || Array.isArray(v) : undefined),
    kindText: { masters: "a master ('host' or 'host:port') or a list of them" },
    fail,
    unknown: (keys) => {
      const r = unknownOptions(keys, Object.keys(KINDS), REFUSED_SALT_OPTIONS, file ?? '-');
      if (r.refuse) throw fail(file ?? '-', r.refuse);
      warn('config_unknown_options', r.warn);
    },
  });
  const cfg = merged as unknown as MinionConfig;
  const level = loggerLevel(cfg.log_level);
  if (!level) throw fail(file ?? '-', `log_level '${cfg.log_level}' is not a log level (one of ${LOG_LEVEL_NAMES.join(', ')})`);
  cfg.log_level = level;
  if (!cfg.id) cfg.id = os.hostname();
  // the master refuses other ids at hello: say so now, naming the file, instead of retrying for ever
  if (!isValidMinionId(cfg.id)) {
    throw minionErrors.make('BRINE_ERR_MINION_CONFIG', {
      file: file ?? '-',
      detail: `id '${cfg.id}' is not a valid minion id (letters, digits and . _ @ -, starting with a letter or digit, at most 253 characters)`,
    });
  }
  checkGrains(cfg.grains, file ?? '-');
  checkSchedule(cfg.schedule, file ?? '-');
  cfg.masters = parseMasters(cfg.master, cfg.master_port, file ?? '-');
  // `master: host:port` stays a shorthand for master + master_port
  if (typeof cfg.master === 'string') {
    cfg.master = cfg.masters[0]!.host;
    cfg.master_port = cfg.masters[0]!.port;
  }
  // Salt's default name, kept for Salt users: said at start, since the name may resolve to anyone
  if (overrides.master === undefined && cfg.masters.length === 1 && cfg.masters[0]!.host === 'salt') {
    warn(
      'master_default_name',
      `connecting to the master named 'salt' (Salt's default, used when the config ${file ?? '-'} sets no \`master:\`): make sure that name resolves to your master, or set master: and master_finger:`,
    );
  }
  const base = file ? path.dirname(path.resolve(file)) : process.cwd();
  cfg.data_dir = path.resolve(base, cfg.data_dir);
  cfg.pki_dir = cfg.pki_dir ? path.resolve(base, cfg.pki_dir) : path.join(cfg.data_dir, 'pki');
  return cfg;
}
