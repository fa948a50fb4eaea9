import { execFile } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { matchTarget } from '@brine/compiler';
import type { Diagnostic, Grains, Matches } from '@brine/core';
import { parse } from 'yaml';
import { masterErrors } from './errors.js';

/** What a master_tops plugin is asked: which SLS (by env) does this minion get? */
export interface MasterTopsContext {
  id: string;
  grains: Grains;
  /** The plugin's own options from the master config (`master_tops: {name: options}`). */
  opts: unknown;
}

/**
 * A master_tops plugin: a module exporting `top(ctx)` (or a default export that is one),
 * returning `{env: [sls, ...]}`. Its matches are added after the top files' ones.
 */
export interface MasterTopsPlugin {
  name: string;
  top(ctx: MasterTopsContext): Promise<Matches> | Matches;
}

/** Runs `command <minion id>` and reads YAML `classes` (the SLS) and `environment` (the env). */
export const extNodes: MasterTopsPlugin = {
  name: 'ext_nodes',
  top(ctx) {
    const command = String(ctx.opts ?? '');
    if (!command) throw new Error('ext_nodes needs a command');
    return new Promise((resolve, reject) => {
      execFile('/bin/sh', ['-c', `${command} "$1"`, 'ext_nodes', ctx.id], { timeout: 30_000, maxBuffer: 4 << 20 }, (err, stdout, stderr) => {
        if (err) return reject(new Error(`'${command}' failed: ${stderr.trim() || err.message}`));
        let data: unknown;
        try {
          data = parse(stdout);
        } catch (e) {
          return reject(new Error(`'${command}' printed YAML that does not parse: ${(e as Error).message}`));
        }
        if (data === null || data === undefined) return resolve({});
        if (typeof data !== 'object' || Array.isArray(data)) return reject(new Error(`'${command}' must print a mapping with classes`));
        const d = data as { classes?: unknown; environment?: unknown };
        const env = typeof d.environment === 'string' ? d.environment : 'base';
        let classes: string[] = [];
        if (Array.isArray(d.classes)) classes = d.classes.map(String);
        else if (d.classes && typeof d.classes === 'object') classes = Object.keys(d.classes);
        resolve(classes.length ? { [env]: classes } : {});
      });
    });
  },
};

/**
 * A YAML or JSON file mapping targets (compound expressions, so plain id globs too) to SLS:
 * `{target: [sls]}` for base, or `{target: {env: [sls]}}`. Read on each call, so edits apply
 * to the next run.
 */
export const fileTops: MasterTopsPlugin = {
  name: 'file',
  top(ctx) {
    const file = String((ctx.opts as { path?: string } | null)?.path ?? ctx.opts ?? '');
    const data = parse(readFileSync(file, 'utf8')) as unknown;
    if (data === null || data === undefined) return {};
    if (typeof data !== 'object' || Array.isArray(data)) throw new Error(`${file} must map targets to SLS lists`);
    const out: Matches = {};
    for (const [tgt, val] of Object.entries(data as Record<string, unknown>)) {
      if (!matchTarget(tgt, 'compound', { id: ctx.id, grains: ctx.grains })) continue;
      const byEnv: Record<string, unknown> = Array.isArray(val) || typeof val === 'string' ? { base: val } : (val as Record<string, unknown>);
      for (const [env, list] of Object.entries(byEnv ?? {})) {
        for (const sls of Array.isArray(list) ? list : [list]) {
          const l = (out[env] ??= []);
          if (!l.includes(String(sls))) l.push(String(sls));
        }
      }
    }
    return out;
  },
};

const BUILTIN: Record<string, MasterTopsPlugin> = { ext_nodes: extNodes, file: fileTops };

export interface LoadedTops {
  plugins: Array<{ plugin: MasterTopsPlugin; opts: unknown }>;
  /** Plugins named in the config that could not be loaded: every minion's compile reports them. */
  errors: string[];
}

/**
 * Resolves `master_tops: {name: options}`: built-ins by name, others from `<dir>/<name>.js`
 * (or .mjs) in the configured plugin dirs.
 */
export async function loadMasterTops(config: Record<string, unknown>, dirs: string[]): Promise<LoadedTops> {
  const out: LoadedTops = { plugins: [], errors: [] };
  for (const [name, opts] of Object.entries(config)) {
    let plugin = BUILTIN[name];
    if (!plugin) {
      const file = dirs.flatMap((d) => [path.join(d, `${name}.js`), path.join(d, `${name}.mjs`)]).find((f) => existsSync(f));
      if (!file) {
        out.errors.push(`master_tops plugin '${name}' is neither built in nor found in ${dirs.join(', ') || '(no master_tops_dirs)'}`);
        continue;
      }
      try {
        const mod = (await import(pathToFileURL(file).href)) as { top?: unknown; default?: unknown };
        const fn = typeof mod.top === 'function' ? mod.top : typeof mod.default === 'function' ? mod.default : undefined;
        if (!fn) throw new Error('it exports no top(ctx) function');
        plugin = { name, top: fn as MasterTopsPlugin['top'] };
      } catch (e) {
        out.errors.push(`master_tops plugin '${name}' (${file}) does not load: ${(e as Error).message}`);
        continue;
      }
    }
    out.plugins.push({ plugin, opts });
  }
  return out;
}

/** Every plugin's matches for one minion, merged in config order; failures become diagnostics. */
export async function runMasterTops(tops: LoadedTops, id: string, grains: Grains): Promise<{ matches: Matches; diagnostics: Diagnostic[] }> {
  const diagnostics: Diagnostic[] = tops.errors.map((detail) => masterErrors.diag('BRINE_ERR_MASTER_TOPS', { name: '-', id, detail }));
  const matches: Matches = {};
  for (const { plugin, opts } of tops.plugins) {
    try {
      const got = await plugin.top({ id, grains, opts });
      if (got === null || typeof got !== 'object' || Array.isArray(got)) throw new Error('it must return {env: [sls, ...]}');
      for (const [env, list] of Object.entries(got)) {
        if (!Array.isArray(list)) throw new Error(`env '${env}' must map to a list of SLS`);
        const l = (matches[env] ??= []);
        for (const sls of list) if (!l.includes(String(sls))) l.push(String(sls));
      }
    } catch (e) {
      diagnostics.push(masterErrors.diag('BRINE_ERR_MASTER_TOPS', { name: plugin.name, id, detail: (e as Error).message }));
    }
  }
  return { matches, diagnostics };
}
