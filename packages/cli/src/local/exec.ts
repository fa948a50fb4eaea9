import { join } from 'node:path';
import type { FileClient } from '@brine/core';
import type { ExecContext, ExecRegistry } from '@brine/exec';
import type { LocalResult } from './result.js';
import type { LocalOptions } from './options.js';

/** The execution functions of `brine local`, loaded on first use (most runs are state runs). */
let shared: Promise<{ exec: typeof import('@brine/exec'); registry: ExecRegistry }> | undefined;

export function localExec(): Promise<{ exec: typeof import('@brine/exec'); registry: ExecRegistry }> {
  return (shared ??= import('@brine/exec').then((exec) => ({ exec, registry: exec.execRegistry() })));
}

/** salt:// over the local roots for cp.*, with the state modules' package loaded only when a file is asked for. */
function lazyRootsClient(roots: Record<string, string[]>): FileClient {
  let client: Promise<FileClient> | undefined;
  const load = () => (client ??= import('@brine/states/lazy').then((s) => s.dirFileClient(roots)));
  return {
    get: async (url, env) => (await load()).get(url, env),
    list: async (prefix, env) => (await load()).list!(prefix, env),
  };
}

/** This host as salt-call --local sees it: its grains, the pillar given, the id as the minion config. */
export async function localContext(opts: LocalOptions, direct = false): Promise<ExecContext> {
  const { exec, registry } = await localExec();
  const ctx = exec.execContext({
    direct,
    registry,
    grains: opts.grains,
    pillar: opts.pillar,
    opts: { id: opts.id, file_roots: opts.roots, test: false },
  });
  return { ...ctx, files: lazyRootsClient(opts.roots), cacheDir: opts.dataDir, grainsFile: join(opts.dataDir, 'grains') };
}

/** Any function that is not a compile or a state run: the execution function of that name, as salt-call runs it. */
export async function runExecLocal(opts: LocalOptions): Promise<LocalResult> {
  const { exec, registry } = await localExec();
  const r = await exec.runExec(registry, opts.fun, opts.call.args, opts.call.kwargs, await localContext(opts, true));
  return { value: r.return, retcode: r.retcode, diagnostics: [], isExec: true };
}
