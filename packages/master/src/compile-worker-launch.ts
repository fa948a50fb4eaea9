import { existsSync, readdirSync, realpathSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { installRoot } from '@brine/core';
import type { MasterConfig } from './config.js';

/** What a compile worker process is started with (the pool's fork and the tests' probes alike). */
export interface WorkerLaunch {
  entry: string;
  execArgv: string[];
  /** The whole environment: the master's own (a store URL, say) is not passed on. */
  env: NodeJS.ProcessEnv;
  /** Paths the worker must not be able to read; it reports on each when it starts. */
  denied: string[];
}

export type LaunchConfig = Pick<MasterConfig, 'compile_worker_memory_mb' | 'data_dir' | 'pki_dir' | 'token_file'> & Partial<Pick<MasterConfig, 'gpg_keydir'>>;

function withReal(p: string): string[] {
  const abs = path.resolve(p);
  try {
    const real = realpathSync(abs);
    return real === abs ? [abs] : [abs, real];
  } catch {
    return [abs];
  }
}

/**
 * Templates are untrusted: a compile worker runs under Node's permission model, reading only
 * Brine's own code (the packages and node_modules beside this file); it gets its file roots
 * from the master. No writes, no child processes, no worker threads, no addons, no node:sqlite
 * (which the permission model does not guard), no inspector.
 */
export function workerLaunch(config: LaunchConfig, execArgv: string[] = process.execArgv): WorkerLaunch {
  // the worker's entry is this package's own file, also when this code runs from the CLI's bundle
  const fromSource = import.meta.url.endsWith('.ts');
  const root = installRoot();
  const packages = path.join(root, 'packages');
  const code = [packages, path.join(root, 'node_modules')];
  // the workspace links lead back to the packages; where node_modules is itself a link (a
  // mutation-testing sandbox), to another copy of Brine's code, which the worker must read too
  const scope = path.join(root, 'node_modules', '@brine');
  for (const name of existsSync(scope) ? readdirSync(scope) : []) code.push(path.join(scope, name));
  // run from TypeScript sources (the tests): the repo's own loader hooks come along
  const hooks: string[] = [];
  for (const a of fromSource ? execArgv : []) {
    if (a === '--experimental-strip-types') hooks.push(a);
    const spec = a.startsWith('--import=') ? a.slice('--import='.length) : '';
    if (!/^(\.|\/|file:)/.test(spec)) continue;
    const file = spec.startsWith('file:') ? fileURLToPath(spec) : path.resolve(spec);
    if (file.startsWith(root + path.sep) && !file.includes(`${path.sep}node_modules${path.sep}`)) {
      hooks.push(`--import=${file}`);
      code.push(file);
    }
  }
  const flags = process.allowedNodeEnvironmentFlags;
  const reads = [...new Set(code.flatMap(withReal))].filter((p) => existsSync(p));
  return {
    entry: path.join(packages, 'master', fromSource ? 'src/compile-worker.ts' : 'dist/compile-worker.js'),
    execArgv: [
      flags.has('--permission') ? '--permission' : '--experimental-permission',
      ...reads.map((p) => `--allow-fs-read=${p}`),
      ...(flags.has('--experimental-sqlite') ? ['--no-experimental-sqlite'] : []),
      '--no-addons',
      `--max-old-space-size=${config.compile_worker_memory_mb}`,
      ...hooks,
    ],
    env: { BRINE_TEMPLATE_CACHE: 'off', BRINE_PROBE_CACHE: 'off', NODE_DISABLE_COMPILE_CACHE: '1', ...(process.env.TZ ? { TZ: process.env.TZ } : {}) },
    denied: [config.data_dir, config.pki_dir, config.token_file, ...(config.gpg_keydir ? [config.gpg_keydir] : [])].map((p) => path.resolve(p)),
  };
}
