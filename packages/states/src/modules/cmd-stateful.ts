import type { StateReturn } from '@brine/core';

/** Splits a line like a POSIX shell would into words (quotes and backslashes honoured). */
export function shlexSplit(line: string): string[] {
  const words: string[] = [];
  let cur = '';
  let inWord = false;
  let quote: '"' | "'" | null = null;
  for (let i = 0; i < line.length; i++) {
    const ch = line[i];
    if (quote) {
      if (ch === quote) quote = null;
      else if (ch === '\\' && quote === '"' && i + 1 < line.length) cur += line[++i];
      else cur += ch;
    } else if (ch === '"' || ch === "'") {
      quote = ch;
      inWord = true;
    } else if (ch === '\\' && i + 1 < line.length) {
      cur += line[++i];
      inWord = true;
    } else if (/\s/.test(ch)) {
      if (inWord) words.push(cur);
      cur = '';
      inWord = false;
    } else {
      cur += ch;
      inWord = true;
    }
  }
  if (quote) throw new Error('No closing quotation');
  if (inWord) words.push(cur);
  return words;
}

function isTrue(v: unknown): boolean {
  const s = String(v).toLowerCase();
  if (v && ['true', 'yes', '1'].includes(s)) return true;
  if (['false', 'no', '0'].includes(s)) return false;
  throw new Error(`Failed parsing boolean value: ${String(v)}`);
}

/**
 * The `stateful` protocol: the command's stdout (JSON object, or a last line of key=value
 * pairs) says whether it changed anything and what to comment.
 */
export function reinterpretStateful(state: StateReturn): StateReturn {
  const ret = state.changes as Record<string, unknown>;
  state.changes = {};
  state.comment = '';
  let out = typeof ret.stdout === 'string' ? ret.stdout : '';
  if (!out) {
    if (ret.stderr) state.comment = String(ret.stderr);
    return state;
  }
  let data: Record<string, unknown>;
  let isJson = false;
  let idx = -1;
  try {
    const parsed: unknown = JSON.parse(out);
    if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
      state.comment = 'script JSON output must be a JSON object (e.g., {})!';
      state.result = false;
      return state;
    }
    data = parsed as Record<string, unknown>;
    isJson = true;
  } catch {
    idx = out.trimEnd().lastIndexOf('\n');
    if (idx !== -1) out = out.slice(idx + 1);
    data = {};
    try {
      for (const item of shlexSplit(out)) {
        const parts = item.split('=');
        if (parts.length !== 2) throw new Error('bad pair');
        data[parts[0]] = parts[1];
      }
    } catch {
      state.comment = 'Failed parsing script output! Stdout must be JSON or a line of name=value pairs.';
      state.result = false;
      state.changes = { ...ret };
      return state;
    }
  }
  let changed: boolean;
  try {
    changed = isTrue(data.changed ?? 'no');
  } catch (e) {
    state.comment = (e as Error).message;
    state.result = false;
    return state;
  }
  if ('comment' in data) {
    state.comment = String(data.comment);
    delete data.comment;
  }
  if (changed) {
    for (const [k, v] of Object.entries(ret)) if (!(k in data)) data[k] = v;
    const stdout = String(data.stdout ?? '');
    data.stdout = isJson ? '' : idx === -1 ? '' : stdout.slice(0, idx);
    state.changes = data;
  }
  return state;
}
