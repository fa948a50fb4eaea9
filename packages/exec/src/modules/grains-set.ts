import { readFileSync, renameSync, writeFileSync } from 'node:fs';
import { isDict, yamlLib } from '@brine/core';
import { execErrors } from '../errors.js';
import type { ExecContext, ExecFunction, ExecResult } from '../function.js';

/**
 * The grains of a grains file (Salt's `/etc/salt/grains`: a YAML dictionary), {} when there is
 * none. The minion and `brine local` merge these over the collected grains, under the config's.
 */
export function readGrainsFile(file: string, fun = 'grains'): Record<string, unknown> {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (e) {
    // none yet, or another user's minion (brine local by a user on a minion host): no grains of it
    if (['ENOENT', 'ENOTDIR', 'EACCES'].includes((e as NodeJS.ErrnoException).code ?? '')) return {};
    throw execErrors.make('BRINE_ERR_EXEC_GRAINS_FILE', { fun, file, detail: `cannot be read: ${(e as Error).message}` });
  }
  let data: unknown;
  try {
    data = yamlLib().parse(text, { version: '1.1' });
  } catch (e) {
    throw execErrors.make('BRINE_ERR_EXEC_GRAINS_FILE', { fun, file, detail: `is not YAML: ${(e as Error).message}` });
  }
  if (data === null || data === undefined) return {};
  if (!isDict(data)) throw execErrors.make('BRINE_ERR_EXEC_GRAINS_FILE', { fun, file, detail: 'must hold a dictionary' });
  return data;
}

function fileOf(fun: string, ctx: ExecContext): string {
  if (!ctx.grainsFile)
    throw execErrors.make('BRINE_ERR_EXEC_NO_GRAINS_FILE', { fun, detail: 'no grains file: run it on a minion, or brine local with --config' });
  return ctx.grainsFile;
}

/**
 * Salt's setvals: each key set in the grains file and in the live grains; a None value with
 * `destructive` removes the key. The file is replaced in one rename; the master hears at once.
 */
async function setvals(fun: string, ctx: ExecContext, values: Record<string, unknown>, destructive: boolean): Promise<void> {
  const file = fileOf(fun, ctx);
  const stored = readGrainsFile(file, fun);
  for (const [k, v] of Object.entries(values)) {
    if (v === null && destructive) {
      delete stored[k];
      delete ctx.grains[k];
    } else {
      stored[k] = v;
      ctx.grains[k] = v;
    }
  }
  const tmp = `${file}.${process.pid}.tmp`;
  // YAML 1.1 as it is read (a key like `y` or `on` is quoted)
  writeFileSync(tmp, yamlLib().stringify(stored, { version: '1.1' }), { mode: 0o600 });
  renameSync(tmp, file);
  await ctx.grainsChanged?.();
}

const truthy = (v: unknown) => v === true || v === 'True' || v === 'true';

async function delval(fun: string, ctx: ExecContext, key: string, destructive: boolean): Promise<ExecResult> {
  await setvals(fun, ctx, { [key]: null }, destructive);
  return { return: { comment: '', changes: { [key]: null }, result: true } };
}

/** Salt's grains.setval & co: grains that persist in the minion's grains file. */
export const grainsSetFunctions: ExecFunction[] = [
  {
    name: 'grains.setvals',
    doc: "Sets several grains at once (a dict), persisted in the minion's grains file; returns them.",
    params: [
      { name: 'grains', type: 'dict', required: true },
      { name: 'destructive', type: 'any' },
      { name: 'refresh_pillar', type: 'any' },
    ],
    run: async (a, ctx) => {
      const values = a.grains as Record<string, unknown>;
      await setvals('grains.setvals', ctx, values, truthy(a.destructive));
      return { return: values };
    },
  },
  {
    name: 'grains.setval',
    doc: "Sets one grain, persisted in the minion's grains file: {key: val}.",
    params: [
      { name: 'key', type: 'string', required: true },
      { name: 'val', type: 'any', required: true },
      { name: 'destructive', type: 'any' },
      { name: 'refresh_pillar', type: 'any' },
    ],
    run: async (a, ctx) => {
      const values = { [String(a.key)]: a.val };
      await setvals('grains.setval', ctx, values, truthy(a.destructive));
      return { return: values };
    },
  },
  {
    name: 'grains.append',
    doc: 'Appends a value to a list grain (made when missing; convert=True turns a single value into a list).',
    params: [
      { name: 'key', type: 'string', required: true },
      { name: 'val', type: 'any', required: true },
      { name: 'convert', type: 'any' },
      { name: 'delimiter', type: 'string', default: ':' },
    ],
    run: async (a, ctx) => {
      const key = String(a.key);
      const cur = ctx.grains[key];
      let list: unknown[];
      if (cur === undefined || cur === null) list = [];
      else if (Array.isArray(cur)) list = [...(cur as unknown[])];
      else if (truthy(a.convert)) list = [cur];
      else return { return: `The key ${key} is not a valid list` };
      const same = (x: unknown) => JSON.stringify(x) === JSON.stringify(a.val);
      if (list.some(same)) return { return: `The val ${typeof a.val === 'string' ? a.val : JSON.stringify(a.val)} was already in the list ${key}` };
      list.push(a.val);
      await setvals('grains.append', ctx, { [key]: list }, false);
      return { return: { [key]: list } };
    },
  },
  {
    name: 'grains.delval',
    doc: 'Sets a grain to None (destructive=True removes it).',
    params: [
      { name: 'key', type: 'string', required: true },
      { name: 'destructive', type: 'any' },
    ],
    run: (a, ctx) => delval('grains.delval', ctx, String(a.key), truthy(a.destructive)),
  },
  {
    name: 'grains.delkey',
    doc: 'Removes a grain from the grains file and the live grains.',
    params: [
      { name: 'key', type: 'string', required: true },
      { name: 'force', type: 'any' },
    ],
    run: (a, ctx) => delval('grains.delkey', ctx, String(a.key), true),
  },
];
