import { copyFileSync, existsSync, readFileSync } from 'node:fs';
import type { ArgSpec, LowChunk, StateContext, StateReturn } from '@brine/core';
import { chunkTag } from '@brine/core';
import { asBool } from '../../util/args.js';
import { fileDiff } from '../../util/diff.js';
import { lstatOrUndefined } from '../../util/fs-meta.js';
import { renderFileTemplate } from '../../util/template.js';
import { atomicWrite, defaultFileMode, failed, pathState, start } from './common.js';

export const blockreplaceArgs: Record<string, ArgSpec> = {
  marker_start: { type: 'string' },
  marker_end: { type: 'string' },
  source: { type: 'string' },
  source_hash: { type: 'string' },
  template: { type: 'string' },
  sources: { type: 'list' },
  source_hashes: { type: 'list' },
  defaults: { type: 'dict' },
  context: { type: 'dict' },
  content: { type: ['string', 'number'] },
  append_if_not_found: { type: 'boolean' },
  prepend_if_not_found: { type: 'boolean' },
  backup: { type: ['string', 'boolean'] },
  show_changes: { type: 'boolean' },
  append_newline: { type: 'boolean' },
  insert_before_match: { type: 'string' },
  insert_after_match: { type: 'string' },
};

export const accumulatedArgs: Record<string, ArgSpec> = {
  filename: { type: 'string', required: true },
  text: { type: ['string', 'list', 'dict'] },
};

class BlockError extends Error {}

/** The `*_in` requisites of an accumulator chunk, as the IDs they name. */
function depsOf(low: LowChunk): string[] {
  const out: string[] = [];
  for (const key of ['require_in', 'watch_in']) {
    const v = (low as Record<string, unknown>)[key];
    for (const item of Array.isArray(v) ? v : v ? [v] : []) {
      if (item && typeof item === 'object') out.push(...Object.values(item as Record<string, unknown>).map(String));
      else out.push(String(item));
    }
  }
  return out;
}

function hasFileDep(low: LowChunk): boolean {
  for (const key of ['require_in', 'watch_in']) {
    const v = (low as Record<string, unknown>)[key];
    for (const item of Array.isArray(v) ? v : v ? [v] : []) {
      if (item && typeof item === 'object' ? 'file' in (item as object) : String(item).includes('file')) return true;
    }
  }
  return false;
}

/**
 * The text the file.accumulated states that already ran charged for `filename`: the ones naming
 * `id` in their require_in/watch_in, or every one when none does (Salt's rule). Salt keeps this
 * in a per-run file; here the run's own results say which accumulators ran.
 */
export function accumulatedText(ctx: StateContext, filename: string, id: string): string[] {
  const charged: Array<{ deps: string[]; lines: string[] }> = [];
  const seen = new Map<string, { deps: string[]; lines: string[] }>();
  for (const low of ctx.lowstate) {
    if (low.state !== 'file' || low.fun !== 'accumulated' || (low as Record<string, unknown>).filename !== filename) continue;
    if (ctx.running[chunkTag(low)]?.result !== true || !hasFileDep(low)) continue;
    const key = String(low.name);
    let acc = seen.get(key);
    if (!acc) {
      acc = { deps: [], lines: [] };
      seen.set(key, acc);
      charged.push(acc);
    }
    acc.deps.push(...depsOf(low));
    const text = (low as Record<string, unknown>).text;
    for (const t of Array.isArray(text) ? text : [text]) {
      const s = typeof t === 'string' ? t : JSON.stringify(t);
      if (!acc.lines.includes(s)) acc.lines.push(s);
    }
  }
  const mine = charged.filter((a) => a.deps.includes(id));
  return (mine.length ? mine : charged).flatMap((a) => a.lines);
}

/** file.accumulated: text charged for a later file.blockreplace or file.managed of `filename`. */
export async function accumulated(args: Record<string, unknown>, ctx: StateContext): Promise<StateReturn> {
  const name = String(args.name ?? '');
  const ret = start(name);
  if (!name) return failed(ret, 'Must provide name to file.accumulated');
  if (args.text === undefined || args.text === null) return failed(ret, 'No text supplied for accumulator');
  if (!hasFileDep(ctx.low)) return failed(ret, `Orphaned accumulator ${name} in ${ctx.low.__sls__}:${ctx.low.__id__}`);
  ret.comment = `Accumulator ${name} for file ${String(args.filename)} was charged by text`;
  return ret;
}

interface BlockOpts {
  start: string;
  end: string;
  content: string;
  append: boolean;
  prepend: boolean;
  before?: string;
  after?: string;
  appendNewline?: boolean;
}

/** salt.modules.file.blockreplace on text: the file's lines before and after. */
export function blockLines(text: string, o: BlockOpts): { orig: string[]; next: string[] } {
  if ([o.append, o.prepend, !!o.before, !!o.after].filter(Boolean).length > 1) {
    throw new BlockError('Only one of append_if_not_found, prepend_if_not_found, insert_before_match, and insert_after_match is permitted');
  }
  const appendNewline = o.appendNewline ?? (!o.content.endsWith('\n') ? true : undefined);
  const split = o.content.split('\r\n').flatMap((l) => l.split('\n'));
  const addContent = (sep: string, lines: string[] = [], withStart = true, endLine = o.end): string[] => {
    const endL = endLine.replace(/[\r\n]+$/, '') + sep;
    if (withStart) lines.push(o.start + sep);
    split.forEach((l, i) => {
      if (i + 1 !== split.length) lines.push(l + sep);
      else if (appendNewline) lines.push(l + sep, endL);
      else lines.push(l + endL);
    });
    if (!split.length) lines.push(endL);
    return lines;
  };
  const orig = text.split(/(?<=\r\n|\n|\r(?!\n))/).filter((l) => l !== '');
  let next: string[] = [];
  let sep: string | undefined;
  let inBlock = false;
  let found = false;
  for (const line of orig) {
    let keep = true;
    if (sep === undefined) sep = line.endsWith('\r\n') ? '\r\n' : '\n';
    if (line.includes(o.start)) inBlock = true;
    else if (inBlock) {
      keep = false;
      const pos = line.indexOf(o.end);
      if (pos !== -1) {
        inBlock = false;
        found = true;
        addContent(sep, next, false, line.slice(pos));
      }
    }
    if (keep) next.push(line);
  }
  sep ??= '\n';
  if (inBlock) throw new BlockError('Unterminated marked block. End of file reached before marker_end.');
  if (!found) {
    if (o.prepend) {
      next = [...addContent(sep), ...next];
      found = true;
    } else if (o.append) {
      if (next.length && !next[next.length - 1].endsWith(sep)) next[next.length - 1] += sep;
      addContent(sep, next);
      found = true;
    } else if (o.before || o.after) {
      const re = new RegExp((o.before ?? o.after)!);
      let idx = orig.findIndex((l) => re.test(l));
      if (idx !== -1) {
        for (const l of addContent(sep)) {
          if (o.after) idx++;
          next.splice(idx, 0, l);
          if (o.before) idx++;
        }
        found = true;
      }
    }
  }
  if (!found) throw new BlockError('Cannot edit marked block. Markers were not found in file.');
  return { orig, next };
}

/** file.blockreplace: the text between two marker lines is `content` (plus accumulators). */
export async function blockreplace(args: Record<string, unknown>, ctx: StateContext): Promise<StateReturn> {
  const name = String(args.name ?? '');
  const ret = start(name);
  ret.result = false;
  if (!name) return failed(ret, 'Must provide name to file.blockreplace');
  if (!name.startsWith('/')) return failed(ret, `Specified file ${name} is not an absolute path`);
  if (!existsSync(name)) return failed(ret, `${name}: file not found`);
  let content = args.content === undefined || args.content === null ? '' : String(args.content);
  for (const l of accumulatedText(ctx, name, ctx.low.__id__)) content = content === '' ? l : `${content}\n${l}`;
  const sources = [...(typeof args.source === 'string' ? [args.source] : []), ...(Array.isArray(args.sources) ? args.sources.map(String) : [])];
  for (const src of sources) {
    const saltenv = ctx.low.__env__ ?? 'base';
    const body = src.startsWith('salt://') ? await ctx.files.get(src, saltenv) : existsSync(src) ? readFileSync(src) : undefined;
    if (!body) return failed(ret, `Source file '${src}' not found`);
    const template = typeof args.template === 'string' ? args.template : 'jinja';
    // Salt's cp.get_template: saltenv, defaults and context only
    content += await renderFileTemplate(ctx, {
      engine: template,
      text: body.toString('utf8'),
      source: src,
      saltenv,
      vars: {},
      defaults: args.defaults,
      context: args.context,
    });
  }
  const raw = readFileSync(name, 'utf8');
  ret.old_state = await pathState(name, ctx.cmd);
  let orig: string[];
  let next: string[];
  try {
    ({ orig, next } = blockLines(raw, {
      start: typeof args.marker_start === 'string' ? args.marker_start : '#-- start managed zone --',
      end: typeof args.marker_end === 'string' ? args.marker_end : '#-- end managed zone --',
      content,
      append: asBool(args.append_if_not_found),
      prepend: asBool(args.prepend_if_not_found),
      before: (args.insert_before_match as string) || undefined,
      after: (args.insert_after_match as string) || undefined,
      appendNewline: typeof args.append_newline === 'boolean' ? args.append_newline : undefined,
    }));
  } catch (e) {
    ret.comment = `Encountered error managing block: ${(e as Error).message}. See the log for details.`;
    return ret;
  }
  const before = orig.join('');
  const after = next.join('');
  if (before === after) {
    ret.result = true;
    ret.comment = 'No changes needed to be made';
    ret.new_state = ret.old_state;
    return ret;
  }
  ret.changes = { diff: args.show_changes === false ? true : fileDiff(before, after) };
  if (ctx.test) {
    ret.result = null;
    ret.comment = 'Changes would be made';
    return ret;
  }
  const st = await lstatOrUndefined(name);
  const backup = args.backup ?? '.bak';
  if (backup !== false && backup !== '') copyFileSync(name, `${name}${String(backup)}`);
  await atomicWrite(name, after, st, defaultFileMode());
  ret.result = true;
  ret.comment = 'Changes were made';
  ret.new_state = await pathState(name, ctx.cmd);
  return ret;
}
