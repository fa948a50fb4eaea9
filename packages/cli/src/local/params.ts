/**
 * Params files: YAML dictionaries given with `--params FILE` (repeatable). A file may start from
 * others with a top-level `include:` (one path or a list), relative to the including file:
 *
 *   include: [common.yaml, ../site/prod.yaml]
 *   db: {host: db1}
 *
 * Override order, lowest first: each file's includes in the order listed (each with its own
 * includes before it), then the file itself; the `--params` files in command-line order; last
 * a `params='{...}'` argument on the command line. Dictionaries merge key by key at every
 * depth; anything else (lists, strings, numbers) is replaced whole. A file reached twice
 * through different includes is merged each time; a file that includes itself (directly or
 * through others) is an error naming the chain.
 */
import { readFileSync } from 'node:fs';
import { dirname, relative, resolve } from 'node:path';
import { isDict, yamlLib } from '@brine/core';
import { cliErrors } from '../errors.js';

/** Merges `from` into `into` (in place): dictionaries key by key, the rest replaced. */
export function mergeParams(into: Record<string, unknown>, from: Record<string, unknown>): Record<string, unknown> {
  for (const [k, v] of Object.entries(from)) {
    const cur = into[k];
    if (isDict(cur) && isDict(v)) mergeParams(cur, v);
    else into[k] = isDict(v) ? mergeParams({}, v) : v;
  }
  return into;
}

function bad(file: string, detail: string, cwd: string): never {
  throw cliErrors.make('BRINE_ERR_CLI_BAD_FILE', { what: 'params file', file: relative(cwd, file) || file, detail });
}

function readOne(file: string, cwd: string): Record<string, unknown> {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    return bad(file, code === 'ENOENT' ? 'no such file' : (e as Error).message, cwd);
  }
  let data: unknown;
  try {
    data = yamlLib().parse(text, { version: '1.1' });
  } catch (e) {
    return bad(file, (e as Error).message.split('\n')[0]!, cwd);
  }
  if (data === null || data === undefined) return {};
  if (!isDict(data)) return bad(file, 'it must hold a dictionary', cwd);
  return data;
}

function load(file: string, chain: string[], cwd: string, into: Record<string, unknown>): void {
  if (chain.includes(file)) {
    const names = [...chain.slice(chain.indexOf(file)), file].map((f) => relative(cwd, f) || f);
    bad(chain[chain.length - 1]!, `include cycle: ${names.join(' -> ')}`, cwd);
  }
  const data = readOne(file, cwd);
  const { include, ...own } = data;
  if (include !== undefined && include !== null) {
    const list = typeof include === 'string' ? [include] : include;
    if (!Array.isArray(list) || !list.every((x) => typeof x === 'string')) bad(file, 'include must be a file name or a list of file names', cwd);
    for (const inc of list as string[]) load(resolve(dirname(file), inc), [...chain, file], cwd, into);
  }
  mergeParams(into, own);
}

/** The params of `files` (resolved from `cwd`), merged in the documented order. */
export function loadParamsFiles(files: string[], cwd: string): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const f of files) load(resolve(cwd, f), [], cwd, out);
  return out;
}

/**
 * The template params of a command: the `--params` files, then the `params=` argument on top.
 * A `params=` that is not a dictionary goes to `bad` (each command reports it its own way) and
 * gives undefined.
 */
export function commandParams(files: string[], inline: unknown, cwd: string, bad: (detail: string) => void): Record<string, unknown> | undefined {
  if (inline !== undefined && !isDict(inline)) {
    bad(`params= must be a dictionary, e.g. params='{"k": 1}'`);
    return undefined;
  }
  const params = loadParamsFiles(files, cwd);
  if (inline !== undefined) mergeParams(params, inline);
  return params;
}
