import { appendFile, readFile, writeFile } from '../../util/sync-fs.js';
import type { ArgSpec, StateContext, StateReturn } from '@brine/core';
import { asBool } from '../../util/args.js';
import { lineDiff } from '../../util/diff.js';
import { lstatOrUndefined } from '../../util/fs-meta.js';
import { describe, ensureParent, failed, notAbsolute, pathState, splitLines, start } from './common.js';

export const appendArgs: Record<string, ArgSpec> = {
  text: { type: ['string', 'list', 'number'] },
  makedirs: { type: 'boolean' },
  ignore_whitespace: { type: 'boolean' },
};

const squash = (s: string) => s.trim().split(/\s+/).join(' ');

/** file.append: these lines are in the file; the missing ones are added at the end. */
export async function append(args: Record<string, unknown>, ctx: StateContext): Promise<StateReturn> {
  const name = String(args.name);
  const ret = start(name);
  const bad = notAbsolute(name);
  if (bad) return failed(ret, bad);
  const texts = args.text === undefined || args.text === null ? [] : Array.isArray(args.text) ? args.text : [args.text];
  const lines: string[] = [];
  for (const t of texts) lines.push(...splitLines(String(t)));
  if (!lines.length) return failed(ret, 'No text found to append. Nothing appended');
  const st = await lstatOrUndefined(name);
  if (st?.isDirectory()) return failed(ret, `Specified target ${name} is a directory`);
  let raw = st ? await readFile(name) : undefined;
  ret.old_state = st ? await describe(name, st, ctx.cmd, raw) : null;
  if (!st && ctx.test) {
    ret.result = null;
    ret.changes = { new: name };
    ret.comment = `File ${name} is set to be created`;
    return ret;
  }
  if (!st) {
    if (!(await ensureParent(name, asBool(args.makedirs)))) return failed(ret, `Directory for ${name} is not present`);
    await writeFile(name, '');
    ret.changes.new = name;
    raw = Buffer.alloc(0);
  }
  const before = raw!.toString('utf8');
  const haystack = args.ignore_whitespace === false ? before : squash(before);
  const missing: string[] = [];
  for (const l of lines) {
    const needle = args.ignore_whitespace === false ? l : squash(l);
    if (!haystack.includes(needle) && !missing.includes(l)) missing.push(l);
  }
  if (!missing.length) {
    ret.comment = `File ${name} is in correct state`;
    ret.new_state = ret.old_state;
    return ret;
  }
  const prefix = before.length && !before.endsWith('\n') ? '\n' : '';
  const after = before + prefix + missing.map((l) => `${l}\n`).join('');
  const diff = lineDiff(splitLines(before), splitLines(after));
  if (ctx.test) {
    ret.result = null;
    ret.changes = { diff };
    ret.comment = `File ${name} is set to be updated`;
    return ret;
  }
  const added = Buffer.from(prefix + missing.map((l) => `${l}\n`).join(''));
  await appendFile(name, added);
  ret.changes.diff = diff;
  ret.comment = `Appended ${missing.length} lines`;
  ret.new_state = await pathState(name, ctx.cmd, Buffer.concat([raw!, added]));
  return ret;
}
