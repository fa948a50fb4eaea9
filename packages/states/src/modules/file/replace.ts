import { readFile } from '../../util/sync-fs.js';
import type { ArgSpec, StateContext, StateReturn } from '@brine/core';
import { asBool } from '../../util/args.js';
import { fileDiff } from '../../util/diff.js';
import { lstatOrUndefined } from '../../util/fs-meta.js';
import { atomicWrite, defaultFileMode, describe, failed, notAbsolute, pathState, start } from './common.js';

export const replaceArgs: Record<string, ArgSpec> = {
  pattern: { type: 'string', required: true },
  repl: { type: ['string', 'number'], required: true },
  count: { type: 'number' },
  flags: { type: ['list', 'number', 'string'] },
  bufsize: { type: ['number', 'string'] },
  append_if_not_found: { type: 'boolean' },
  prepend_if_not_found: { type: 'boolean' },
  not_found_content: { type: 'string' },
  backup: { type: ['string', 'boolean'] },
  show_changes: { type: 'boolean' },
  ignore_if_missing: { type: 'boolean' },
  backslash_literal: { type: 'boolean' },
};

const FLAG_BITS: Record<string, [number, string]> = {
  IGNORECASE: [2, 'i'],
  I: [2, 'i'],
  MULTILINE: [8, 'm'],
  M: [8, 'm'],
  DOTALL: [16, 's'],
  S: [16, 's'],
  UNICODE: [32, 'u'],
  U: [32, 'u'],
};

/** Python re flags (names or the integer) as JS flags; Salt's default is MULTILINE. */
export function jsFlags(flags: unknown): string {
  if (flags === undefined || flags === null) return 'm';
  const out = new Set<string>();
  if (typeof flags === 'number') {
    for (const [bit, f] of Object.values(FLAG_BITS)) if (flags & bit) out.add(f);
  } else {
    const names = Array.isArray(flags) ? flags.map(String) : String(flags).split(/[|,\s]+/);
    for (const n of names) {
      const hit = FLAG_BITS[n.trim().toUpperCase()];
      if (hit) out.add(hit[1]);
    }
  }
  return [...out].join('');
}

/** Python replacement syntax (\1, \g<1>, \g<name>) in JS form; `$` is literal in Python. */
export function jsReplacement(repl: string): string {
  let out = '';
  for (let i = 0; i < repl.length; i++) {
    const ch = repl[i];
    if (ch === '$') out += '$$';
    else if (ch === '\\' && i + 1 < repl.length) {
      const next = repl[i + 1];
      const g = /^g<([^>]+)>/.exec(repl.slice(i + 1));
      if (g) {
        out += /^\d+$/.test(g[1]) ? `$${g[1]}` : `$<${g[1]}>`;
        i += g[0].length;
      } else if (/\d/.test(next)) {
        out += `$${next}`;
        i++;
      } else if (next === 'n') {
        out += '\n';
        i++;
      } else if (next === 't') {
        out += '\t';
        i++;
      } else if (next === '\\') {
        out += '\\';
        i++;
      } else out += ch;
    } else out += ch;
  }
  return out;
}

/** file.replace: every match of a regex in the file replaced. */
export async function replace(args: Record<string, unknown>, ctx: StateContext): Promise<StateReturn> {
  const name = String(args.name);
  const ret = start(name);
  const bad = notAbsolute(name);
  if (bad) return failed(ret, bad);
  const st = await lstatOrUndefined(name);
  if (!st) {
    if (asBool(args.ignore_if_missing)) {
      ret.comment = 'No changes needed to be made';
      return ret;
    }
    return failed(ret, `${name}: file not found`);
  }
  if (!st.isFile()) return failed(ret, `${name} is not a file`);
  let re: RegExp;
  try {
    re = new RegExp(String(args.pattern), `g${jsFlags(args.flags)}`);
  } catch (e) {
    return failed(ret, `Invalid regular expression: ${(e as Error).message}`);
  }
  const raw = await readFile(name);
  const before = raw.toString('utf8');
  const count = typeof args.count === 'number' ? args.count : 0;
  const repl = asBool(args.backslash_literal) ? String(args.repl).replace(/\$/g, '$$$$') : jsReplacement(String(args.repl));
  let n = 0;
  let found = false;
  let after = before.replace(re, (...m: unknown[]) => {
    found = true;
    if (count > 0 && n >= count) return String(m[0]);
    n++;
    const groups = m.filter((x) => typeof x === 'string' || x === undefined).slice(0, -1);
    const named = typeof m[m.length - 1] === 'object' ? (m[m.length - 1] as Record<string, string>) : undefined;
    return repl.replace(/\$(\$|\d+|<([^>]+)>)/g, (_all, what: string, gname?: string) => {
      if (what === '$') return '$';
      if (gname !== undefined) return named?.[gname] ?? '';
      return String(groups[Number(what)] ?? '');
    });
  });
  const content = typeof args.not_found_content === 'string' ? args.not_found_content : String(args.repl);
  if (!found && asBool(args.append_if_not_found) && !before.includes(content)) {
    after = before + (before.length && !before.endsWith('\n') ? '\n' : '') + content + '\n';
  } else if (!found && asBool(args.prepend_if_not_found) && !before.includes(content)) {
    after = content + '\n' + before;
  }
  ret.old_state = await describe(name, st, ctx.cmd, raw);
  if (after === before) {
    ret.comment = 'No changes needed to be made';
    ret.new_state = ret.old_state;
    return ret;
  }
  const diff = args.show_changes === false ? '<show_changes=False>' : fileDiff(before, after);
  ret.changes = { diff };
  if (ctx.test) {
    ret.result = null;
    ret.comment = 'Changes would have been made';
    return ret;
  }
  const written = Buffer.from(after);
  await atomicWrite(name, written, st, defaultFileMode());
  ret.comment = 'Changes were made';
  ret.new_state = await pathState(name, ctx.cmd, written);
  return ret;
}
