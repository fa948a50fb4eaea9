import { readFileSync, writeFileSync } from 'node:fs';
import type { ArgSpec, StateContext, StateReturn } from '@brine/core';
import { asBool } from '../../util/args.js';
import { failed, pathState, start } from './common.js';
import { readLines } from './line.js';

export const keyvalueArgs: Record<string, ArgSpec> = {
  key: { type: ['string', 'number'] },
  value: { type: 'any' },
  key_values: { type: 'dict' },
  separator: { type: 'string' },
  append_if_not_found: { type: 'boolean' },
  prepend_if_not_found: { type: 'boolean' },
  search_only: { type: 'boolean' },
  show_changes: { type: 'boolean' },
  ignore_if_missing: { type: 'boolean' },
  count: { type: 'number' },
  uncomment: { type: 'string' },
  key_ignore_case: { type: 'boolean' },
  value_ignore_case: { type: 'boolean' },
  create_if_missing: { type: 'boolean' },
};

/** Python's str() of a YAML value, as Salt writes it into the line. */
function pyStr(v: unknown): string {
  if (v === true) return 'True';
  if (v === false) return 'False';
  if (v === null || v === undefined) return 'None';
  if (typeof v === 'number' && Number.isInteger(v) && !Number.isSafeInteger(v)) return BigInt(v).toString();
  if (typeof v === 'string') return v;
  if (Array.isArray(v)) return `[${v.map(pyRepr).join(', ')}]`;
  if (typeof v === 'object')
    return `{${Object.entries(v as object)
      .map(([k, x]) => `${pyRepr(k)}: ${pyRepr(x)}`)
      .join(', ')}}`;
  return String(v);
}

function pyRepr(v: unknown): string {
  return typeof v === 'string' ? `'${v.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'` : pyStr(v);
}

function pyTypeName(v: unknown): string {
  if (typeof v === 'boolean') return 'bool';
  if (typeof v === 'number') return Number.isInteger(v) ? 'int' : 'float';
  if (v === null || v === undefined) return 'NoneType';
  if (Array.isArray(v)) return 'list';
  if (typeof v === 'object') return 'dict';
  return 'str';
}

/** Python's str.lstrip(chars); chars undefined strips whitespace. */
function lstrip(s: string, chars: string | undefined): string {
  if (chars === undefined) return s.replace(/^\s+/, '');
  let i = 0;
  while (i < s.length && chars.includes(s[i])) i++;
  return s.slice(i);
}

/** Python's str.partition. */
function partition(s: string, sep: string): [string, string, string] {
  const i = s.indexOf(sep);
  return i < 0 ? [s, '', ''] : [s.slice(0, i), sep, s.slice(i + sep.length)];
}

const tmpl = (k: string, s: string, v: unknown) => `${k}${s}${pyStr(v)}\n`;

/** The keys and values to set, from key and value or key_values; a string says what is wrong. */
function wantedPairs(args: Record<string, unknown>): Record<string, unknown> | string {
  const isDict = (v: unknown) => typeof v === 'object' && v !== null && !Array.isArray(v);
  if (args.key !== undefined && args.key !== null && args.value !== undefined && args.value !== null) {
    if (isDict(args.key_values)) return 'file.keyvalue can not combine key_values with key and value';
    return { [String(args.key)]: args.value };
  } else if (!isDict(args.key_values) || !Object.keys(args.key_values as object).length) {
    return `file.keyvalue key and value not supplied and key_values ${args.key_values && Object.keys(args.key_values).length ? 'is not a dictionary' : 'is empty'}`;
  }
  return args.key_values as Record<string, unknown>;
}

/** Sets the values on the lines that have the keys (up to `left` times each): the new lines and their diff. */
function setLines(
  lines: string[],
  kv: Record<string, unknown>,
  o: { sep: string; uncomment: string | undefined; keyCase: boolean; valueCase: boolean },
  left: Map<string, number>,
): { diff: string[]; content: string[]; changes: number } {
  const { sep, uncomment, keyCase, valueCase } = o;
  const diff: string[] = [];
  const content: string[] = [];
  let changes = 0;
  for (let line of lines) {
    let test = lstrip(line, uncomment);
    const didUncomment = line.length > test.length;
    if (keyCase) test = test.toLowerCase();
    for (const [key, value] of Object.entries(kv)) {
      const testKey = keyCase ? key.toLowerCase() : key;
      if (!test.startsWith(testKey)) continue;
      const working = didUncomment ? lstrip(line, uncomment) : line;
      const [lineKey, lineSep, rawValue] = partition(working, sep);
      if (lineSep !== sep) continue;
      if ((keyCase ? lineKey.toLowerCase() : lineKey) !== testKey) continue;
      let lineValue = rawValue.trim();
      let testValue = pyStr(value).trim();
      if (valueCase) {
        lineValue = lineValue.toLowerCase();
        testValue = testValue.toLowerCase();
      }
      let valuesMatch = lineValue === testValue;
      let needsChanging = false;
      if (didUncomment) {
        if (left.get(key)! > 0) needsChanging = true;
        else if (!valuesMatch) valuesMatch = true;
      } else if (left.get(key) === 0) needsChanging = true;
      if (!valuesMatch || needsChanging) {
        diff.push(`- ${line}`);
        line = '';
        if (left.get(key) !== 0) {
          line = tmpl(lineKey, lineSep, value);
          if (typeof value !== 'string') diff.push(`+ ${line.trimEnd()} (from ${pyTypeName(value)} type)\n`);
          else diff.push(`+ ${line}`);
        }
        changes++;
      }
      if (left.get(key)! > 0) left.set(key, left.get(key)! - 1);
      // Salt goes on with the next key (its `continue` is in the key loop), on the line as now.
    }
    content.push(line);
  }
  return { diff, content, changes };
}

/** Adds the keys not found at the end or the start of the content; the number of lines added. */
function addMissing(
  kv: Record<string, unknown>,
  sep: string,
  left: Map<string, number>,
  where: 'append' | 'prepend' | undefined,
  content: string[],
  diff: string[],
): number {
  let changes = 0;
  if (where === 'append') {
    const tmp: string[] = [];
    for (const [key, value] of Object.entries(kv)) {
      if (left.get(key)! > 0) {
        const l = tmpl(key, sep, value);
        tmp.push(`+ ${l}`);
        content.push(l);
        changes++;
      }
    }
    if (tmp.length) diff.push('- <EOF>\n', ...tmp, '+ <EOF>\n');
  } else if (where === 'prepend') {
    let did = false;
    for (const [key, value] of Object.entries(kv)) {
      if (left.get(key)! > 0) {
        const l = tmpl(key, sep, value);
        if (!did) {
          diff.unshift('  <SOF>\n');
          did = true;
        }
        diff.splice(1, 0, `+ ${l}`);
        content.unshift(l);
        changes++;
      }
    }
  }
  return changes;
}

/** file.keyvalue: `key<separator>value` lines set in a file, Salt's line-by-line rules. */
export async function keyvalue(args: Record<string, unknown>, ctx: StateContext): Promise<StateReturn> {
  const name = String(args.name ?? '');
  const ret = start(name);
  ret.result = null;
  if (!name) return failed(ret, 'Must provide name to file.keyvalue');
  const kv = wantedPairs(args);
  if (typeof kv === 'string') return failed(ret, kv);
  const sep = typeof args.separator === 'string' ? args.separator : '=';
  let append = asBool(args.append_if_not_found);
  const prepend = asBool(args.prepend_if_not_found);
  const uncomment = typeof args.uncomment === 'string' ? args.uncomment : undefined;
  const keyCase = asBool(args.key_ignore_case);
  const valueCase = asBool(args.value_ignore_case);
  const showChanges = args.show_changes !== false;
  let lines: string[];
  try {
    lines = readLines(readFileSync(name, 'utf8'));
    ret.old_state = await pathState(name, ctx.cmd);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT' && asBool(args.create_if_missing)) {
      append = true;
      lines = [];
      ret.old_state = null;
    } else {
      ret.comment = `unable to open ${name}`;
      ret.result = asBool(args.ignore_if_missing);
      return ret;
    }
  }
  const count = typeof args.count === 'number' ? args.count : 1;
  const left = new Map(Object.keys(kv).map((k) => [k, count]));
  const { diff, content, changes: changed } = setLines(lines, kv, { sep, uncomment, keyCase, valueCase }, left);
  const changes = changed + addMissing(kv, sep, left, append ? 'append' : prepend ? 'prepend' : undefined, content, diff);
  if (changes === 0) {
    ret.result = true;
    ret.new_state = ret.old_state;
    return ret;
  }
  if (ctx.test) {
    ret.comment = `File ${name} is set to be changed (${changes} lines)`;
    if (showChanges) {
      ret.changes.diff = diff.join('');
      ret.comment += '\nPredicted diff:\n\r\t\t' + diff.join('\r\t\t');
      ret.result = null;
    }
    return ret;
  }
  ret.comment = `Changed ${changes} lines`;
  if (showChanges) ret.changes.diff = diff.join('');
  try {
    writeFileSync(name, content.join(''));
  } catch {
    ret.comment = `${name} not writable`;
    ret.result = false;
    return ret;
  }
  ret.result = true;
  ret.new_state = await pathState(name, ctx.cmd);
  return ret;
}
