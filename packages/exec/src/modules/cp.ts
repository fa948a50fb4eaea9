import { createHash } from 'node:crypto';
import { mkdirSync, renameSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { FileClient } from '@brine/core';
import { execErrors } from '../errors.js';
import type { ExecContext, ExecFunction, Param } from '../function.js';

/** `salt://path?saltenv=x` -> the path and the env (the argument's env when the URL names none). */
function saltPath(fun: string, url: unknown, env: string): { rel: string; env: string; url: string } {
  const s = String(url);
  if (!s.startsWith('salt://')) throw execErrors.make('BRINE_ERR_EXEC_BAD_ARGS', { fun, detail: `'${s}' is not a salt:// URL` });
  const [rest, query] = s.slice('salt://'.length).split('?', 2) as [string, string | undefined];
  const q = new URLSearchParams(query ?? '');
  const useEnv = q.get('saltenv') ?? q.get('env') ?? env;
  const rel = rest
    .split('/')
    .filter((p) => p !== '' && p !== '.')
    .join('/');
  return { rel, env: useEnv, url: `salt://${rel}` };
}

function client(fun: string, ctx: ExecContext): FileClient {
  if (!ctx.files) throw execErrors.make('BRINE_ERR_EXEC_NO_FILE_SERVER', { fun, detail: 'run it on a minion or in brine local' });
  return ctx.files;
}

/** The salt:// file a cp function names (its `path` and `saltenv`), fetched: undefined when missing. */
async function fetchNamed(fun: string, a: Record<string, unknown>, ctx: ExecContext) {
  const src = saltPath(fun, a.path, String(a.saltenv));
  return { src, data: await client(fun, ctx).get(src.url, src.env) };
}

function list(fun: string, ctx: ExecContext, prefix: string, env: string): Promise<string[]> {
  const c = client(fun, ctx);
  if (!c.list) throw execErrors.make('BRINE_ERR_EXEC_NO_FILE_SERVER', { fun, detail: 'this file client cannot list' });
  return c.list(prefix, env).then((l) => [...l].sort());
}

/** Salt renders the paths (not the contents) with template=; Brine refuses rather than write to a path with `{{`. */
function noTemplate(fun: string, a: Record<string, unknown>): void {
  if (a.template !== undefined && a.template !== null && a.template !== '')
    throw execErrors.make('BRINE_ERR_EXEC_CP_TEMPLATE', { fun, template: String(a.template) });
}

function writeAtomic(dest: string, data: Buffer): void {
  const tmp = `${dest}.${process.pid}.tmp`;
  writeFileSync(tmp, data);
  renameSync(tmp, dest);
}

function isDir(p: string): boolean {
  try {
    return statSync(p).isDirectory();
  } catch {
    return false;
  }
}

const saltenv: Param = { name: 'saltenv', type: 'string', default: 'base' };
// gzip compresses the transfer in Salt; the master's frames are already bounded, so it is accepted and ignored
const copyParams: Param[] = [saltenv, { name: 'makedirs', type: 'any' }, { name: 'template', type: 'any' }, { name: 'gzip', type: 'any' }];

/** Salt's cp module: files of the salt:// file server onto this host. */
export const cpFunctions: ExecFunction[] = [
  {
    name: 'cp.get_file',
    doc: "Copies a salt:// file to dest (a folder keeps the file's name); '' when the source is missing, False when dest's folder is missing and makedirs is not set. gzip is accepted and ignored.",
    params: [{ name: 'path', type: 'string', required: true }, { name: 'dest', type: 'string', required: true }, ...copyParams],
    run: async (a, ctx) => {
      noTemplate('cp.get_file', a);
      const { src, data } = await fetchNamed('cp.get_file', a, ctx);
      if (data === undefined) return { return: '' };
      let dest = String(a.dest);
      if (dest.endsWith('/') || isDir(dest)) dest = path.join(dest, path.posix.basename(src.rel));
      if (!isDir(path.dirname(dest))) {
        if (a.makedirs !== true && a.makedirs !== 'True' && a.makedirs !== 'true') return { return: false };
        mkdirSync(path.dirname(dest), { recursive: true });
      }
      writeAtomic(dest, data);
      return { return: dest };
    },
  },
  {
    name: 'cp.get_dir',
    doc: 'Copies a salt:// folder under dest (dest/<folder name>/...); returns the files written.',
    params: [{ name: 'path', type: 'string', required: true }, { name: 'dest', type: 'string', required: true }, ...copyParams],
    run: async (a, ctx) => {
      noTemplate('cp.get_dir', a);
      const src = saltPath('cp.get_dir', a.path, String(a.saltenv));
      const c = client('cp.get_dir', ctx);
      const parent = path.posix.dirname(src.rel);
      const written: string[] = [];
      for (const f of await list('cp.get_dir', ctx, src.rel, src.env)) {
        const data = await c.get(`salt://${f}`, src.env);
        if (data === undefined) continue;
        const dest = path.join(String(a.dest), ...(parent === '.' ? f : f.slice(parent.length + 1)).split('/'));
        mkdirSync(path.dirname(dest), { recursive: true });
        writeAtomic(dest, data);
        written.push(dest);
      }
      return { return: written };
    },
  },
  {
    name: 'cp.get_file_str',
    doc: 'The contents of a salt:// file as a string, False when it is missing.',
    params: [{ name: 'path', type: 'string', required: true }, saltenv],
    run: async (a, ctx) => {
      const { data } = await fetchNamed('cp.get_file_str', a, ctx);
      return { return: data === undefined ? false : data.toString('utf8') };
    },
  },
  {
    name: 'cp.cache_file',
    doc: "Caches a salt:// file in the minion's file cache and returns its local path, False when it is missing.",
    params: [{ name: 'path', type: 'string', required: true }, saltenv],
    run: async (a, ctx) => {
      const { src, data } = await fetchNamed('cp.cache_file', a, ctx);
      if (data === undefined) return { return: false };
      if (!ctx.cacheDir) throw execErrors.make('BRINE_ERR_EXEC_NO_FILE_SERVER', { fun: 'cp.cache_file', detail: 'no cache folder' });
      const dest = path.join(ctx.cacheDir, 'files', src.env, ...src.rel.split('/'));
      const inside = path.relative(path.join(ctx.cacheDir, 'files'), dest);
      if (inside.startsWith('..') || path.isAbsolute(inside))
        throw execErrors.make('BRINE_ERR_EXEC_BAD_ARGS', { fun: 'cp.cache_file', detail: `'${src.env}' is not an environment name` });
      mkdirSync(path.dirname(dest), { recursive: true });
      writeAtomic(dest, data);
      return { return: dest };
    },
  },
  {
    name: 'cp.hash_file',
    doc: 'The sha256 of a salt:// file: {hash_type, hsum}; {} when it is missing.',
    params: [{ name: 'path', type: 'string', required: true }, saltenv],
    run: async (a, ctx) => {
      const { data } = await fetchNamed('cp.hash_file', a, ctx);
      return { return: data === undefined ? {} : { hash_type: 'sha256', hsum: createHash('sha256').update(data).digest('hex') } };
    },
  },
  {
    name: 'cp.list_master',
    doc: 'The files of the file server for saltenv, under prefix.',
    params: [saltenv, { name: 'prefix', type: 'string', default: '' }],
    run: async (a, ctx) => ({ return: await list('cp.list_master', ctx, String(a.prefix), String(a.saltenv)) }),
  },
  {
    name: 'cp.list_master_dirs',
    doc: 'The folders holding files on the file server for saltenv, under prefix (empty folders are not served).',
    params: [saltenv, { name: 'prefix', type: 'string', default: '' }],
    run: async (a, ctx) => {
      const dirs = new Set<string>();
      for (const f of await list('cp.list_master_dirs', ctx, String(a.prefix), String(a.saltenv))) {
        const parts = f.split('/');
        for (let i = 1; i < parts.length; i++) dirs.add(parts.slice(0, i).join('/'));
      }
      return { return: [...dirs].sort() };
    },
  },
];
