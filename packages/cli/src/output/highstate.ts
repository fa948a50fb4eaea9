import type { RunningDict, StateResult } from '@brine/core';

/**
 * The highstate outputter: what a Salt user reads after `state.apply`. Per state, in
 * `__run_num__` order, the block (ID, Function, Name when it differs from the ID, Result,
 * Comment, Started, Duration, Changes rendered like Salt's nested outputter), then the summary.
 */

export type HighstateMode = 'full' | 'changes' | 'terse' | 'mixed';

export interface HighstateOptions {
  minion: string;
  color?: boolean;
  mode?: HighstateMode;
}

export const ANSI = {
  GREEN: '\x1b[0;32m',
  CYAN: '\x1b[0;36m',
  RED: '\x1b[0;31m',
  LIGHT_YELLOW: '\x1b[1;33m',
  LIGHT_RED: '\x1b[1;31m',
  ENDC: '\x1b[0m',
} as const;
export type Palette = Record<keyof typeof ANSI, string>;
export const NO_COLOR: Palette = { GREEN: '', CYAN: '', RED: '', LIGHT_YELLOW: '', LIGHT_RED: '', ENDC: '' };

/** Python's repr of a scalar, as Salt's outputters print values. */
function pyScalar(v: unknown): string {
  if (v === null || v === undefined) return 'None';
  if (v === true) return 'True';
  if (v === false) return 'False';
  return String(v);
}

/** Python's str.splitlines: no trailing empty line, \r\n and \r split too. */
function splitLines(s: string): string[] {
  if (s === '') return [];
  const lines = s.split(/\r\n|\r|\n/);
  if (lines[lines.length - 1] === '') lines.pop();
  return lines;
}

/** Salt's nested outputter: dicts as `----------` + sorted `key:` lines, lists as `- item`. */
export function formatNested(value: unknown, indent: number, c: Palette = NO_COLOR, prefix = '', out: string[] = []): string[] {
  const line = (color: string, msg: string, pre = '', suffix = '') => out.push(`${' '.repeat(indent)}${color}${pre}${msg}${c.ENDC}${suffix}`);
  if (value === null || value === undefined || typeof value === 'boolean' || typeof value === 'number') {
    line(c.LIGHT_YELLOW, pyScalar(value), prefix);
  } else if (typeof value === 'string') {
    splitLines(value).forEach((l, i) => line(c.GREEN, l, i === 0 ? prefix : ' '.repeat(prefix.length)));
  } else if (Array.isArray(value)) {
    for (const item of value) {
      if (item !== null && typeof item === 'object') {
        line(c.GREEN, '|_');
        formatNested(item, indent + 2, c, Array.isArray(item) ? '- ' : '', out);
      } else {
        formatNested(item, indent, c, '- ', out);
      }
    }
  } else if (typeof value === 'object') {
    if (indent) line(c.CYAN, '----------');
    const obj = value as Record<string, unknown>;
    for (const key of Object.keys(obj).sort()) {
      line(c.CYAN, key, prefix, ':');
      formatNested(obj[key], indent + 4, c, '', out);
    }
  } else {
    line(c.GREEN, String(value), prefix);
  }
  return out;
}

function hasChanges(r: StateResult): boolean {
  return !!r.changes && typeof r.changes === 'object' && Object.keys(r.changes).length > 0;
}

function parseTag(tag: string): [string, string, string, string] {
  // the usual tag has exactly four parts: cut at the first two and the last separator
  const a = tag.indexOf('_|-');
  const b = a < 0 ? -1 : tag.indexOf('_|-', a + 3);
  const z = tag.lastIndexOf('_|-');
  if (b > 0 && z > b) return [tag.slice(0, a), tag.slice(a + 3, b), tag.slice(b + 3, z), tag.slice(z + 3)];
  const parts = tag.split('_|-');
  if (parts.length >= 4) return [parts[0]!, parts[1]!, parts.slice(2, -1).join('_|-'), parts[parts.length - 1]!];
  return [tag, tag, tag, ''];
}

function durationText(d: unknown): string {
  if (typeof d !== 'number') return d === undefined || d === null || d === '' ? '' : `${String(d)} ms`;
  return `${Number.isInteger(d) ? d.toFixed(1) : String(d)} ms`;
}

const COMMENT_BREAK = `\n${' '.repeat(14)}`;

function commentText(comment: unknown): string {
  const s = (Array.isArray(comment) ? comment.map(String).join(' ') : String(comment ?? '')).trim();
  return s.includes('\n') ? s.replace(/\n/g, COMMENT_BREAK) : s;
}

function stateColor(r: StateResult, c: Palette): string {
  if (r.result === false) return c.RED;
  if (r.result === null) return c.LIGHT_YELLOW;
  return hasChanges(r) ? c.CYAN : c.GREEN;
}

function terse(tag: string, r: StateResult, tcolor: string, c: Palette): string {
  const [state, , name, fun] = parseTag(tag);
  const word = r.result === false ? 'Failed' : r.result === null ? 'Differs' : hasChanges(r) ? 'Changed' : 'Clean';
  return (
    `${tcolor} Name: ${name} - Function: ${state}.${fun} - Result: ${word}` +
    ` Started: - ${String(r.start_time ?? '')} Duration: ${durationText(r.duration)}${c.ENDC}`
  );
}

/** One state's block, its lines joined (the outputter builds one string, not an array per state). */
function full(tag: string, r: StateResult, tcolor: string, c: Palette): string {
  const [state, id, name, fun] = parseTag(tag);
  const e = c.ENDC;
  let text = `${tcolor}----------${e}\n    ${tcolor}      ID: ${id}${e}\n    ${tcolor}Function: ${state}.${fun}${e}\n`;
  if (id !== name) text += `    ${tcolor}    Name: ${name}${e}\n`;
  text += `    ${tcolor}  Result: ${pyScalar(r.result)}${e}\n    ${tcolor} Comment: ${commentText(r.comment)}${e}\n`;
  // As Salt: an entry without timing (a Listen_Error, a failed requisite) shows none.
  if (r.start_time !== undefined) text += `    ${tcolor} Started: ${String(r.start_time)}${e}\n    ${tcolor}Duration: ${durationText(r.duration)}${e}\n`;
  const nested = hasChanges(r) ? nestedHighstate(r.changes, c) : undefined;
  const changes = hasChanges(r) ? (nested ?? `\n${formatNested(r.changes, 14, e ? { ...c, GREEN: c.CYAN } : c).join('\n')}`) : '';
  return `${text}${tcolor}     Changes:   ${changes}${e}`;
}

/**
 * An orchestration step's changes `{out: highstate, ret: {minion: its run}}`: each minion's run
 * as a highstate block of its own, indented under the step (as Salt's outputter shows them).
 */
function nestedHighstate(changes: Record<string, unknown>, c: Palette): string | undefined {
  const ret = changes.ret;
  if (changes.out !== 'highstate' || ret === null || typeof ret !== 'object' || Array.isArray(ret)) return undefined;
  let text = '';
  for (const [host, data] of Object.entries(ret as Record<string, unknown>)) {
    const opts = { minion: host, color: c === ANSI };
    const block =
      data !== null && typeof data === 'object' && !Array.isArray(data) && Object.keys(data).every((k) => k.includes('_|-'))
        ? formatHighstate(data as RunningDict, opts)
        : Array.isArray(data) && data.every((x) => typeof x === 'string')
          ? formatHighstateErrors(data as string[], opts)
          : `${host}:\n${formatNested(data, 4, c).join('\n')}`;
    text +=
      '\n' +
      block
        .split('\n')
        .map((l) => ' '.repeat(14) + l)
        .join('\n');
  }
  return text;
}

/** The summary counts: Succeeded (with changed/unchanged), Failed, totals and run time. */
function summary(minion: string, results: StateResult[], c: Palette): string[] {
  const counts = { ok: 0, failed: 0, none: 0 };
  let changed = 0;
  let total = 0;
  for (let i = 0; i < results.length; i++) {
    const r = results[i]!;
    if (r.result === false) counts.failed++;
    else if (r.result === null) counts.none++;
    else counts.ok++;
    if (hasChanges(r)) changed++;
    if (typeof r.duration === 'number') total += r.duration;
  }
  const countWidth = Math.max(...[counts.ok, counts.failed, counts.none].filter((n) => n > 0).map((n) => String(n).length), 1);
  const width = 'Succeeded'.length + countWidth + 2;
  const row = (label: string, n: number) => `${label}: ${String(n).padStart(width - (label.length + 2))}`;
  const stats: string[] = [];
  if (counts.none > 0) stats.push(`${c.LIGHT_YELLOW}unchanged=${counts.none}${c.ENDC}`);
  if (changed > 0) stats.push(`${c.GREEN}changed=${changed}${c.ENDC}`);
  let unit = 'ms';
  if (total > 999) {
    total /= 1000;
    unit = 's';
  }
  return [
    `${c.CYAN}\nSummary for ${minion}\n${'-'.repeat(width)}${c.ENDC}`,
    `${c.GREEN}${row('Succeeded', counts.ok + counts.none)}${c.ENDC}${stats.length ? ` (${stats.join(', ')})` : ''}`,
    `${counts.failed ? c.RED : c.CYAN}${row('Failed', counts.failed)}${c.ENDC}`,
    `${c.CYAN}${'-'.repeat(width)}\nTotal states run: ${String(results.length).padStart(width - 7)}${c.ENDC}`,
    `${c.CYAN}Total run time: ${total.toFixed(3).padStart(width - 5)} ${unit}${c.ENDC}`,
  ];
}

/** The tags in `__run_num__` order: the running dict's own order is that already, but for parallel states and listeners. */
function inRunOrder(running: RunningDict): string[] {
  const tags = Object.keys(running);
  const num = (tag: string) => running[tag]!.__run_num__ ?? 0;
  for (let i = 1; i < tags.length; i++) {
    // a stable sort leaves an ordered list as it is: only a list out of order is sorted
    if (num(tags[i]!) < num(tags[i - 1]!)) return tags.sort((a, b) => num(a) - num(b));
  }
  return tags;
}

/** Formats one minion's running dict the way Salt's highstate outputter does. */
export function formatHighstate(running: RunningDict, opts: HighstateOptions): string {
  const c = opts.color ? ANSI : NO_COLOR;
  const mode = opts.mode ?? 'full';
  const tags = inRunOrder(running);
  const results: StateResult[] = [];
  let body = '';
  let hostColor: string = c.GREEN;
  // indexed: no pair or iterator result per state (10,000 states print before the optimiser has this loop)
  for (let i = 0; i < tags.length; i++) {
    const tag = tags[i]!;
    const r = running[tag]!;
    results.push(r);
    if (r.result === false) hostColor = c.RED;
    else if (r.result === null && hostColor !== c.RED) hostColor = c.LIGHT_YELLOW;
    const tcolor = stateColor(r, c);
    const useTerse =
      mode === 'terse' || (mode === 'mixed' && r.result !== false) || (mode === 'changes' && r.result !== false && r.result !== null && !hasChanges(r));
    body += '\n' + (useTerse ? terse(tag, r, tcolor, c) : full(tag, r, tcolor, c));
  }
  const tail = summary(opts.minion, results, c);
  return `${hostColor}${opts.minion}:${c.ENDC}${body}\n${tail.join('\n')}`;
}

/** Salt's way of showing a minion whose state did not compile: the errors, in red. */
export function formatHighstateErrors(errors: string[], opts: HighstateOptions): string {
  const c = opts.color ? ANSI : NO_COLOR;
  const lines = [`${c.LIGHT_RED}${opts.minion}:${c.ENDC}`, `    ${c.LIGHT_RED}Data failed to compile:${c.ENDC}`];
  for (const e of errors) lines.push(`${c.RED}----------\n    ${e}${c.ENDC}`);
  return lines.join('\n');
}
