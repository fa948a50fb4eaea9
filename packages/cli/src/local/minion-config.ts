import { existsSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { isDict, yamlLib } from '@brine/core';
import { cliErrors } from '../errors.js';

/**
 * The part of a Salt minion config that `brine local` honours, as `salt-call --local -c` reads
 * it: file_roots, pillar_roots, grains, id, data_dir (cp.cache_file, the grains file), and the
 * pillar and top file settings below.
 * Command-line flags win over the file.
 */
export interface MinionConfig {
  file_roots?: Record<string, string[]>;
  pillar_roots?: Record<string, string[]>;
  grains?: Record<string, unknown>;
  id?: string;
  pillar_merge_lists?: boolean;
  pillarenv?: string;
  state_top?: string;
  top_file_merging_strategy?: 'merge' | 'same' | 'merge_all';
  default_top?: string;
  nodegroups?: Record<string, string | string[]>;
  /** Absolute (relative to the config file's folder, as the minion reads it). */
  data_dir?: string;
}

function bad(file: string, detail: string): never {
  throw cliErrors.make('BRINE_ERR_CLI_BAD_FILE', { what: 'minion config', file, detail });
}

function roots(file: string, key: string, v: unknown): Record<string, string[]> {
  if (!isDict(v)) bad(file, `${key} must map environments to lists of directories`);
  const out: Record<string, string[]> = {};
  for (const [env, dirs] of Object.entries(v)) {
    const list = typeof dirs === 'string' ? [dirs] : dirs;
    if (!Array.isArray(list) || !list.every((d) => typeof d === 'string')) bad(file, `${key}: ${env} must be a list of directories`);
    out[env] = list as string[];
  }
  return out;
}

const STRING_KEYS = ['id', 'pillarenv', 'state_top', 'default_top'] as const;

/** Reads `--config FILE` (or a config dir holding `minion`, as salt-call's `-c DIR`). */
export function readMinionConfig(path: string): MinionConfig {
  const file = existsSync(path) && statSync(path).isDirectory() ? join(path, 'minion') : path;
  let data: unknown;
  try {
    data = yamlLib().parse(readFileSync(file, 'utf8'), { version: '1.1' });
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    bad(file, code === 'ENOENT' ? 'no such file' : (e as Error).message.split('\n')[0]!);
  }
  if (data === null || data === undefined) return {};
  if (!isDict(data)) bad(file, 'it must hold a dictionary');
  const cfg: MinionConfig = {};
  if (data.file_roots !== undefined) cfg.file_roots = roots(file, 'file_roots', data.file_roots);
  if (data.pillar_roots !== undefined) cfg.pillar_roots = roots(file, 'pillar_roots', data.pillar_roots);
  if (data.grains !== undefined) {
    if (!isDict(data.grains)) bad(file, 'grains must be a dictionary');
    cfg.grains = data.grains;
  }
  for (const key of STRING_KEYS) {
    const v = data[key];
    if (v === undefined || v === null) continue;
    if (typeof v !== 'string' && typeof v !== 'number') bad(file, `${key} must be a string`);
    cfg[key] = String(v);
  }
  if (typeof data.data_dir === 'string') cfg.data_dir = resolve(dirname(file), data.data_dir);
  if (data.pillar_merge_lists !== undefined) cfg.pillar_merge_lists = data.pillar_merge_lists === true;
  const strategy = data.top_file_merging_strategy;
  if (strategy !== undefined) {
    if (strategy !== 'merge' && strategy !== 'same' && strategy !== 'merge_all')
      bad(file, `top_file_merging_strategy must be merge, same or merge_all (got ${String(strategy)})`);
    cfg.top_file_merging_strategy = strategy;
  }
  if (data.nodegroups !== undefined) {
    if (!isDict(data.nodegroups)) bad(file, 'nodegroups must be a dictionary');
    cfg.nodegroups = data.nodegroups as Record<string, string | string[]>;
  }
  return cfg;
}
