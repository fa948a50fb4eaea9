import { dirname, isAbsolute } from 'node:path';
import type { ArgSpec, StateContext, StateReturn } from '@brine/core';
import { fileDiff, linesWithEnds } from '../../util/diff.js';
import { lstatOrUndefined } from '../../util/fs-meta.js';
import { mkdir, readFile, writeFile } from '../../util/sync-fs.js';
import { renderFileTemplate } from '../../util/template.js';
import { failed, splitLines } from './common.js';

export const prependArgs: Record<string, ArgSpec> = {
  text: { type: ['string', 'list', 'number'] },
  makedirs: { type: 'boolean' },
  source: { type: 'string' },
  source_hash: { type: 'string' },
  template: { type: 'string', default: 'jinja' },
  sources: { type: 'list' },
  source_hashes: { type: 'list' },
  defaults: { type: 'dict' },
  context: { type: 'dict' },
  header: { type: 'boolean' },
};

/** Salt's build_whitespace_split_regex: each line's words, any whitespace between and around them. */
function whitespaceRegex(text: string): RegExp {
  let body = '';
  for (const line of text.split(/\r\n|\r|\n/)) {
    const parts = line
      .split(/\s+/)
      .filter(Boolean)
      .map((p) => p.replace(/[.*+?^${}()|[\]\\/-]/g, '\\$&'));
    body += `(?:\\s+)?${parts.join('(?:\\s+)?')}(?:\\s+)?`;
  }
  return new RegExp(`^${body}$`, 'm');
}

/** The text to prepend: `text`, or the rendered `source`/`sources` from the file server. */
async function texts(args: Record<string, unknown>, ctx: StateContext): Promise<string[] | { error: string }> {
  const sources = [...(args.source ? [String(args.source)] : []), ...((args.sources as unknown[] | undefined) ?? []).map(String)];
  if (sources.length === 0) {
    const t = args.text;
    return t === undefined || t === null ? [] : (Array.isArray(t) ? t : [t]).map(String);
  }
  const out: string[] = [];
  for (const src of sources) {
    const saltenv = ctx.low.__env__ ?? 'base';
    const body = await ctx.files.get(src, saltenv);
    if (!body) return { error: `File ${src} not found` };
    const text = body.toString('utf8');
    const engine = typeof args.template === 'string' ? args.template : '';
    out.push(engine ? await renderFileTemplate(ctx, { engine, text, source: src, saltenv, vars: {}, defaults: args.defaults, context: args.context }) : text);
  }
  return out;
}

/** file.prepend: these lines are at the top of the file (with `header`, exactly the first lines). */
export async function prepend(args: Record<string, unknown>, ctx: StateContext): Promise<StateReturn> {
  const name = String(args.name);
  const ret: StateReturn = { name, changes: {}, result: false, comment: '' };
  if (!name) return failed(ret, 'Must provide name to file.prepend');
  if (args.makedirs === true) {
    if (ctx.test) {
      ret.comment = `Directory ${dirname(name)} is set to be updated`;
      ret.result = null;
    } else await mkdir(dirname(name), { recursive: true });
  }
  if (!isAbsolute(name)) return failed(ret, `Specified file ${name} is not an absolute path`);
  if (!(await lstatOrUndefined(name))) {
    // Salt touches the file first; in test mode the touch's prediction is the answer.
    if (ctx.test) return { name, changes: { new: name }, result: null, comment: `File ${name} is set to be created` };
    if (!(await lstatOrUndefined(dirname(name)))) return failed(ret, `${name}: file not found`);
    await writeFile(name, '');
  }
  let chunks: string[] | { error: string };
  try {
    chunks = await texts(args, ctx);
  } catch (e) {
    return failed(ret, (e as Error).message);
  }
  if (!Array.isArray(chunks)) return failed(ret, chunks.error);
  const before = (await readFile(name)).toString('utf8');
  const header = args.header === true;
  const preface: string[] = [];
  for (const chunk of chunks) {
    if (!header && whitespaceRegex(chunk).test(before)) continue;
    preface.push(...splitLines(chunk));
  }
  const slines = linesWithEnds(before);
  const diffOf = (after: string) => fileDiff(before, after);
  if (ctx.test) {
    if (preface.length === 0) return { ...ret, result: true, comment: `File ${name} is in correct state` };
    return { ...ret, result: null, comment: `File ${name} is set to be updated`, changes: { diff: diffOf(preface.map((l) => `${l}\n`).join('') + before) } };
  }
  let count = preface.length;
  const same = header && JSON.stringify(slines.slice(0, preface.length).flatMap((l) => splitLines(l))) === JSON.stringify(preface);
  if (same) count = 0;
  else if (preface.length) await writeFile(name, preface.map((l) => `${l}\n`).join('') + before);
  const after = (await readFile(name)).toString('utf8');
  if (after !== before) ret.changes.diff = diffOf(after);
  ret.comment = count ? `Prepended ${count} lines` : `File ${name} is in correct state`;
  ret.result = true;
  return ret;
}
