import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import type { ArgSpec, StateContext, StateReturn } from '@brine/core';
import { fileDiff } from '../../util/diff.js';
import { lstatOrUndefined } from '../../util/fs-meta.js';
import { atomicWrite, defaultFileMode, failed, isText, notAbsolute, pathState, start } from './common.js';
import { readLines } from './line.js';

export const commentArgs: Record<string, ArgSpec> = {
  regex: { type: 'string', required: true },
  char: { type: 'string' },
  backup: { type: ['string', 'boolean'] },
  ignore_missing: { type: 'boolean' },
};

export const uncommentArgs: Record<string, ArgSpec> = {
  regex: { type: 'string', required: true },
  char: { type: 'string' },
  backup: { type: ['string', 'boolean'] },
};

const escapeRe = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** file.search with multiline: a Python regex anywhere in the file, ^/$ per line. */
function search(text: string, regex: string): boolean {
  return new RegExp(regex, 'm').test(text);
}

/** Python's re.match: anchored at the line's start; `$` may sit before the final newline. */
function matchStart(re: RegExp, line: string): boolean {
  return re.test(line) || re.test(line.replace(/\r?\n$/, ''));
}

/** salt.modules.file.comment_line: matching lines get (or lose) the comment character. */
function commentLines(text: string, regex: string, char: string, cmnt: boolean): string | undefined {
  const core = regex.replace(/^\^+/, '').replace(/\$+$/, '');
  const src = cmnt ? `${regex.startsWith('^') ? '^' : ''}(${core})${regex.endsWith('$') ? '$' : ''}` : `^${char}\\s*(${core})${regex.endsWith('$') ? '$' : ''}`;
  const re = new RegExp(src.startsWith('^') ? src : `^(?:${src})`);
  let found = false;
  const out = readLines(text).map((l) => {
    if (!matchStart(re, l)) return l;
    found = true;
    if (cmnt) return `${char}${l}`;
    let i = 0;
    while (i < l.length && char.includes(l[i])) i++;
    return l.slice(i);
  });
  return found ? out.join('') : undefined;
}

async function edit(name: string, text: string, next: string | undefined, backup: unknown, ctx: StateContext, ret: StateReturn): Promise<void> {
  if (next === undefined || next === text) return;
  const st = await lstatOrUndefined(name);
  if (backup !== false && backup !== null && backup !== '') writeFileSync(`${name}${typeof backup === 'string' ? backup : '.bak'}`, text);
  await atomicWrite(name, next, st, defaultFileMode());
  ret.changes.diff = isText(Buffer.from(next)) ? fileDiff(text, next) : 'Replace binary file';
  ret.new_state = await pathState(name, ctx.cmd);
}

function checkFile(name: string, ret: StateReturn): StateReturn | undefined {
  const bad = notAbsolute(name);
  if (bad) return failed(ret, bad);
  if (!existsSync(name)) return failed(ret, `${name}: file not found`);
  return undefined;
}

/** file.comment: lines matching `regex` commented out. */
export async function comment(args: Record<string, unknown>, ctx: StateContext): Promise<StateReturn> {
  const name = String(args.name ?? '');
  const ret = start(name);
  ret.result = false;
  if (!name) return failed(ret, 'Must provide name to file.comment');
  const bad = checkFile(name, ret);
  if (bad) return bad;
  const regex = String(args.regex);
  const char = typeof args.char === 'string' ? args.char : '#';
  const unanchored = regex.replace(/^(\(\?[iLmsux]\))?\^?(.*?)\$?$/s, '$2');
  const uncommentRe = `^(?!\\s*${escapeRe(char)})\\s*${unanchored}`;
  const commentRe = `${escapeRe(char)}${unanchored}`;
  const text = readFileSync(name, 'utf8');
  ret.old_state = await pathState(name, ctx.cmd);
  if (!search(text, uncommentRe)) {
    ret.new_state = ret.old_state;
    if (search(text, commentRe)) {
      ret.result = true;
      ret.comment = 'Pattern already commented';
      return ret;
    }
    if (args.ignore_missing === true) {
      ret.result = true;
      ret.comment = 'Pattern not found and ignore_missing set to True';
      return ret;
    }
    return failed(ret, `${unanchored}: Pattern not found`);
  }
  if (ctx.test) {
    ret.changes[name] = 'updated';
    ret.comment = `File ${name} is set to be updated`;
    ret.result = null;
    return ret;
  }
  const next = commentLines(text, regex, char, true);
  await edit(name, text, next, args.backup, ctx, ret);
  ret.result = search(next ?? text, commentRe);
  ret.comment = ret.result ? 'Commented lines successfully' : 'Expected commented lines not found';
  return ret;
}

/** file.uncomment: commented lines matching `regex` made live again. */
export async function uncomment(args: Record<string, unknown>, ctx: StateContext): Promise<StateReturn> {
  const name = String(args.name ?? '');
  const ret = start(name);
  ret.result = false;
  if (!name) return failed(ret, 'Must provide name to file.uncomment');
  const bad = checkFile(name, ret);
  if (bad) return bad;
  const regex = String(args.regex);
  const char = typeof args.char === 'string' ? args.char : '#';
  const bare = regex.replace(/^\^+/, '');
  const text = readFileSync(name, 'utf8');
  ret.old_state = await pathState(name, ctx.cmd);
  const live = `^[ \\t]*${bare}`;
  if (!search(text, `${escapeRe(char)}[ \\t]*${bare}`)) {
    ret.new_state = ret.old_state;
    if (search(text, live)) {
      ret.result = true;
      ret.comment = 'Pattern already uncommented';
      return ret;
    }
    return failed(ret, `${regex}: Pattern not found`);
  }
  if (ctx.test) {
    ret.changes[name] = 'updated';
    ret.comment = `File ${name} is set to be updated`;
    ret.result = null;
    return ret;
  }
  const next = commentLines(text, regex, char, false);
  await edit(name, text, next, args.backup, ctx, ret);
  ret.result = search(next ?? text, live);
  ret.comment = ret.result ? 'Uncommented lines successfully' : 'Expected uncommented lines not found';
  return ret;
}
