import { existsSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import type { ArgSpec, StateContext, StateReturn } from '@brine/core';
import { asBool } from '../../util/args.js';
import { fileDiff } from '../../util/diff.js';
import { lstatOrUndefined } from '../../util/fs-meta.js';
import { atomicWrite, defaultFileMode, failed, pathState, start } from './common.js';
import { managed } from './managed.js';

export const lineArgs: Record<string, ArgSpec> = {
  content: { type: ['string', 'number'] },
  match: { type: 'string' },
  mode: { type: 'string' },
  location: { type: 'string' },
  before: { type: 'string' },
  after: { type: 'string' },
  show_changes: { type: 'boolean' },
  backup: { type: ['boolean', 'string'] },
  quiet: { type: 'boolean' },
  indent: { type: 'boolean' },
  create: { type: 'boolean' },
  user: { type: ['string', 'number'] },
  group: { type: ['string', 'number'] },
  file_mode: { type: ['string', 'number'] },
};

/** A failure Salt's file.line raises; the state reports its message. */
class LineError extends Error {}

/** Python's readlines: lines keeping their "\n". */
export function readLines(text: string): string[] {
  const out = text.split(/(?<=\n)/);
  if (out.length && out[out.length - 1] === '') out.pop();
  return out;
}

function eolOf(line: string): string {
  return /(?<!\r)\n$|\r(?!\n)$|\r\n$/.exec(line)?.[0] ?? '';
}

function withEol(src: string, line: string): string {
  return line.trimEnd() + (eolOf(src) || '\n');
}

function withIndent(src: string, line: string, indent: boolean): string {
  if (!indent) return line;
  const idt = /^[\t ]*/.exec(src)![0];
  return idt + line.trimStart();
}

/** The lines a Python regex finds (DOTALL search, or the text appearing literally). */
function linesMatching(lines: string[], regex: string | undefined): string[] | undefined {
  if (!lines.length || !regex) return undefined;
  let re: RegExp;
  try {
    re = new RegExp(regex, 's');
  } catch (e) {
    throw new LineError(`${(e as Error).message}: '${regex}'`);
  }
  // Python's `$` also matches before a final newline: try the line without it too.
  return lines.filter((l) => re.test(l) || re.test(l.replace(/\r?\n$/, '')) || l.includes(regex));
}

function assertOne(probe: string[], target: string): void {
  const n = probe.length;
  const msg = n > 1 ? 'more than' : n < 1 ? 'less than' : undefined;
  if (msg) throw new LineError(`Found ${msg} expected occurrences in "${target}" expression`);
}

const noEol = (s: string) => s.replace(/[\r\n]+$/, '');

/** salt.modules.file._set_line: the new list of lines. */
function setLine(
  lines: string[],
  content: string | undefined,
  o: { match?: string; mode: string; location?: string; before?: string; after?: string; indent: boolean },
): string[] {
  let match = o.match;
  if (!match && o.before === undefined && o.after === undefined) match = content;
  const after = linesMatching(lines, o.after);
  const before = linesMatching(lines, o.before);
  const matched = linesMatching(lines, match);
  const c = content ?? '';
  const { mode, indent } = o;
  if (!lines.length && (mode === 'delete' || mode === 'replace')) return [];
  if (mode === 'delete' && matched?.length) return lines.filter((l) => l !== matched[0]);
  if (mode === 'replace' && matched?.length) {
    const idx = lines.indexOf(matched[0]);
    lines[idx] = withIndent(lines[idx], c, indent);
    return lines;
  }
  if (mode === 'insert') {
    if (o.before === undefined && o.after === undefined && o.location === undefined) {
      throw new LineError('On insert either "location" or "before/after" conditions are required.');
    }
    if (o.location) {
      if (o.location === 'end') lines.push(lines.length ? withIndent(lines[lines.length - 1], c, indent) : c);
      else if (o.location === 'start') {
        if (lines.length) lines.unshift(withEol(lines[0], c));
        else lines = [c + '\n'];
      }
    } else if (before?.length && after?.length) {
      assertOne(before, 'before');
      assertOne(after, 'after');
      const last = lines.indexOf(before[0]);
      lines.splice(last, 0, withIndent(lines[last], c, indent));
    } else if (after?.length) {
      assertOne(after, 'after');
      const idx = lines.indexOf(after[0]);
      const next = idx + 1 >= lines.length ? undefined : lines[idx + 1];
      if (next === undefined || noEol(next) !== noEol(c)) lines.splice(idx + 1, 0, withIndent(lines[idx], c, indent));
    } else if (before?.length) {
      assertOne(before, 'before');
      const idx = lines.indexOf(before[0]);
      const prev = lines.at(idx - 1)!;
      if (noEol(prev) !== noEol(c)) lines.splice(idx, 0, withIndent(lines[idx], c, indent));
    } else throw new LineError('Neither before or after was found in file');
  } else if (mode === 'ensure') {
    if (before?.length && after?.length) {
      assertOne(after, 'after');
      assertOne(before, 'before');
      const ai = lines.indexOf(after[0]);
      const bi = lines.indexOf(before[0]);
      if (!lines.some((l) => l.trimStart() === c)) {
        if (ai + 1 === bi) lines.splice(ai + 1, 0, withIndent(lines[ai], c, indent));
        else if (ai + 2 === bi) lines[ai + 1] = withIndent(lines[ai], c, indent);
        else throw new LineError('Found more than one line between boundaries "before" and "after".');
      }
    } else if (before?.length) {
      assertOne(before, 'before');
      const bi = lines.indexOf(before[0]);
      if (bi === 0 || noEol(lines[bi - 1]) !== noEol(c)) lines.splice(bi, 0, withIndent(lines.at(bi - 1)!, c, indent));
    } else if (after?.length) {
      assertOne(after, 'after');
      const ai = lines.indexOf(after[0]);
      if (ai + 1 >= lines.length || noEol(lines[ai + 1]) !== noEol(c)) lines.splice(ai + 1, 0, withIndent(lines[ai], c, indent));
    } else throw new LineError('Wrong conditions? Unable to ensure line without knowing where to put it before and/or after.');
  }
  return lines;
}

/** file.line: one line edited in place (ensure, replace, insert or delete). */
export async function line(args: Record<string, unknown>, ctx: StateContext): Promise<StateReturn> {
  const name = String(args.name ?? '');
  const ret = start(name);
  if (!name) return failed(ret, 'Must provide name to file.line');
  // Salt first runs file.managed (replace False) so `create`, owner and mode take effect.
  await managed({ name, create: asBool(args.create), user: args.user, group: args.group, mode: args.file_mode, replace: false }, ctx);
  if (!name.startsWith('/')) return failed(ret, `Specified file ${name} is not an absolute path`);
  if (!existsSync(name)) return failed(ret, `${name}: file not found`);
  const mode = typeof args.mode === 'string' ? args.mode.toLowerCase() : undefined;
  if (!mode) return failed(ret, 'Mode was not defined. How to process the file?');
  const content = args.content === undefined || args.content === null ? undefined : String(args.content);
  if (mode !== 'delete' && content === undefined) return failed(ret, "Content can only be empty if mode is ['delete']");
  if (!['insert', 'ensure', 'delete', 'replace'].includes(mode)) return failed(ret, `Unknown mode: "${mode}"`);
  if (!statSync(name).isFile()) return failed(ret, `File "${name}" does not exists or is not a file.`);
  const st = await lstatOrUndefined(name);
  const raw = readFileSync(name, 'utf8');
  ret.old_state = await pathState(name, ctx.cmd);
  let body = readLines(raw);
  if (body.length && eolOf(body[body.length - 1])) body.push('');
  if (raw.length === 0 && (mode === 'delete' || mode === 'replace')) body = [];
  try {
    body = setLine(body, content, {
      match: args.match as string | undefined,
      mode,
      location: args.location as string | undefined,
      before: args.before as string | undefined,
      after: args.after as string | undefined,
      indent: args.indent !== false,
    });
  } catch (e) {
    if (e instanceof LineError) return failed(ret, e.message);
    throw e;
  }
  if (body.length) {
    for (let i = 0; i < body.length; i++) {
      if (!eolOf(body[i]) && i + 1 < body.length) body[i] = withEol(body[i ? i - 1 : 1], body[i]);
    }
    if (body[body.length - 1] === '') body.pop();
  }
  const after = body.join('');
  if (after === raw) {
    ret.comment = 'No changes needed to be made';
    ret.new_state = ret.old_state;
    return ret;
  }
  ret.changes = { diff: args.show_changes === false ? true : fileDiff(raw, after) };
  if (ctx.test) {
    ret.result = null;
    ret.comment = 'Changes would be made';
    return ret;
  }
  if (args.backup) writeFileSync(`${name}.${timestamp()}`, raw);
  await atomicWrite(name, after, st, defaultFileMode());
  ret.comment = 'Changes were made';
  ret.new_state = await pathState(name, ctx.cmd);
  return ret;
}

/** time.strftime("%Y-%m-%d-%H-%M-%S") in local time, Salt's backup suffix for file.line. */
function timestamp(): string {
  const d = new Date();
  const p = (n: number) => String(n).padStart(2, '0');
  return `${d.getFullYear()}-${p(d.getMonth() + 1)}-${p(d.getDate())}-${p(d.getHours())}-${p(d.getMinutes())}-${p(d.getSeconds())}`;
}
