import { existsSync, readFileSync, statSync } from 'node:fs';
import type { ArgSpec, StateContext, StateReturn } from '@brine/core';
import { loadYaml, pyJson, pyYamlDump } from '@brine/jinja';
import { asBool } from '../../util/args.js';
import { failed, start } from './common.js';
import { iniDump, plistDump, tomlDump } from './formats.js';
import { managed } from './managed.js';

export const serializeArgs: Record<string, ArgSpec> = {
  dataset: { type: 'any' },
  dataset_pillar: { type: 'string' },
  serializer: { type: 'string' },
  formatter: { type: 'string' },
  user: { type: ['string', 'number'] },
  group: { type: ['string', 'number'] },
  mode: { type: ['string', 'number'] },
  backup: { type: 'string' },
  makedirs: { type: 'boolean' },
  show_changes: { type: 'boolean' },
  create: { type: 'boolean' },
  merge_if_exists: { type: 'boolean' },
  encoding: { type: 'string' },
  encoding_errors: { type: 'string' },
  serializer_opts: { type: 'list' },
  deserializer_opts: { type: 'list' },
  check_cmd: { type: 'string' },
  tmp_dir: { type: 'string' },
  tmp_ext: { type: 'string' },
};

interface Serializer {
  dump(data: unknown, opts: Record<string, unknown>): string;
  load(text: string): unknown;
}

/** Salt's serializers as file.serialize calls them (json: indent 2, sorted; yaml: block style). */
const noLoad = (): unknown => {
  throw new Error('no deserializer');
};

const SERIALIZERS: Record<string, Serializer> = {
  toml: { dump: (d) => tomlDump(d), load: noLoad },
  configparser: { dump: (d) => iniDump(d), load: noLoad },
  plist: { dump: (d) => plistDump(d), load: noLoad },
  json: {
    dump: (d, o) => pyJson(d, typeof o.indent === 'number' ? o.indent : 2, o.sort_keys !== false, o.ensure_ascii === true),
    load: (t) => JSON.parse(t),
  },
  yaml: {
    dump: (d, o) => pyYamlDump(d, (o.default_flow_style as boolean | null | undefined) ?? false),
    load: (t) => {
      const r = loadYaml(t, { fast: false });
      if (r.error) throw new Error(r.error.message);
      return r.value;
    },
  },
};

const isDict = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** salt.utils.dictupdate.merge_recurse: `upd` merged into a copy of `dest`, dicts key by key. */
function mergeRecurse(dest: unknown, upd: unknown): unknown {
  if (!isDict(dest) || !isDict(upd)) return upd;
  const out: Record<string, unknown> = { ...dest };
  for (const [k, v] of Object.entries(upd)) out[k] = isDict(v) && isDict(out[k]) ? mergeRecurse(out[k], v) : v;
  return out;
}

function deepEqual(a: unknown, b: unknown): boolean {
  return JSON.stringify(sortDeep(a)) === JSON.stringify(sortDeep(b));
}

function sortDeep(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(sortDeep);
  if (isDict(v))
    return Object.fromEntries(
      Object.keys(v)
        .sort()
        .map((k) => [k, sortDeep(v[k])]),
    );
  return v;
}

/** salt.utils.dictdiffer.recursive_diff(old, new).diffs, missing keys on the old side as '<_null_>'. */
function recursiveDiff(past: Record<string, unknown>, current: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const k of Object.keys(current)) {
    const a = past[k];
    const b = current[k];
    if (!(k in past)) out[k] = { new: b, old: '<_null_>' };
    else if (isDict(a) && isDict(b)) {
      const sub = recursiveDiff(a, b);
      if (Object.keys(sub).length) out[k] = sub;
    } else if (!deepEqual(a, b)) out[k] = { new: b, old: a };
  }
  return out;
}

/** Salt's repack_dictlist: a list of one-key dicts (or a dict) as one dict. */
function repack(v: unknown): Record<string, unknown> {
  if (isDict(v)) return v;
  const out: Record<string, unknown> = {};
  if (Array.isArray(v)) for (const item of v) if (isDict(item)) Object.assign(out, item);
  return out;
}

/** file.serialize: the file holds `dataset` written by a serializer (json, yaml). */
export async function serialize(args: Record<string, unknown>, ctx: StateContext): Promise<StateReturn> {
  const name = String(args.name ?? '');
  const ret = start(name);
  if (!name) return failed(ret, 'Must provide name to file.serialize');
  if (args.create === false && !(existsSync(name) && statSync(name).isFile())) {
    ret.comment = `File ${name} is not present and is not set for creation`;
    return ret;
  }
  if (args.serializer && args.formatter) return failed(ret, 'Only one of serializer and formatter are allowed');
  const kind = String(args.serializer || args.formatter || 'yaml').toLowerCase();
  let dataset = args.dataset;
  if (dataset && args.dataset_pillar) return failed(ret, "Only one of 'dataset' and 'dataset_pillar' is permitted");
  if (args.dataset_pillar) dataset = pillarGet(ctx, String(args.dataset_pillar));
  if (dataset === undefined || dataset === null) return failed(ret, "Neither 'dataset' nor 'dataset_pillar' was defined");
  const ser = SERIALIZERS[kind];
  if (!ser) {
    return failed(ret, `The ${kind} serializer could not be found. It either does not exist or its prerequisites are not installed.`);
  }
  const opts: Record<string, unknown> = kind === 'yaml' ? { default_flow_style: false } : {};
  Object.assign(opts, repack(args.serializer_opts));
  let existing: unknown;
  let merged: unknown;
  if (asBool(args.merge_if_exists) && existsSync(name) && statSync(name).isFile()) {
    // Brine reads back json and yaml only.
    if (ser.load === noLoad) return failed(ret, `merge_if_exists is not supported for the ${kind} serializer`);
    try {
      existing = ser.load(readFileSync(name, 'utf8'));
    } catch (e) {
      return failed(ret, `Failed to deserialize existing data: ${(e as Error).message}`);
    }
    if (existing !== undefined && existing !== null) {
      merged = mergeRecurse(existing, dataset);
      if (deepEqual(existing, merged)) {
        ret.comment = `The file ${name} is in the correct state`;
        return ret;
      }
      dataset = merged;
    }
  }
  let contents: string;
  try {
    // plistlib gives bytes, to which Salt's added newline does not stick.
    contents = ser.dump(dataset, opts) + (kind === 'plist' ? '' : '\n');
  } catch (e) {
    return failed(ret, `Failed to serialize dataset: ${(e as Error).message}`);
  }
  const isNew = !existsSync(name);
  const inner = await managed(
    {
      name,
      contents,
      contents_newline: false,
      user: args.user,
      group: args.group,
      mode: args.mode,
      makedirs: args.makedirs,
      show_changes: args.show_changes,
      // Checked on a temp file before it is installed, as file.managed does.
      check_cmd: args.check_cmd,
      tmp_dir: args.tmp_dir,
      tmp_ext: args.tmp_ext,
    },
    ctx,
  );
  Object.assign(ret, inner, { name });
  // Salt writes a new file with a given mode under umask 077: a wanted 0600 is no change.
  if (!ctx.test && isNew && ret.changes.mode === '0600') {
    const { mode: _m, ...rest } = ret.changes;
    ret.changes = rest;
  }
  if (ctx.test) {
    if (inner.result === null) ret.comment = `Dataset will be serialized and stored into ${name}`;
    else if (inner.result === true) ret.comment = `The file ${name} is in the correct state`;
  }
  if (isDict(existing) && isDict(merged)) ret.changes = { ...ret.changes, diff: recursiveDiff(existing, merged) };
  return ret;
}

function pillarGet(ctx: StateContext, key: string): unknown {
  let v: unknown = ctx.templateContext?.pillar;
  for (const part of key.split(':')) {
    if (!isDict(v)) return undefined;
    v = v[part];
  }
  return v;
}
