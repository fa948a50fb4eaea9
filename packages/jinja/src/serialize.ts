/**
 * How templates serialise data the way Salt's filters do: `json` (Python's json.dumps spacing),
 * `yaml` (flow style on one line by default), `yaml_dquote` / `yaml_squote` / `yaml_encode`.
 */
import { pyYamlDump } from './py-yaml-dump.js';
import { keysOf } from '@brine/core';

function jsonString(s: string, ensureAscii: boolean): string {
  let out = JSON.stringify(s);
  if (ensureAscii) out = out.replace(/[\u007f-\uffff]/g, (c) => '\\u' + c.charCodeAt(0).toString(16).padStart(4, '0'));
  return out;
}

/** Python's json.dumps: `{"a": 1, "b": [1, 2]}`; with indent, one item a line. */
export function pyJson(v: unknown, indent: number | null = null, sortKeys = false, ensureAscii = true, level = 0): string {
  if (v === undefined || v === null) return 'null';
  if (v === true) return 'true';
  if (v === false) return 'false';
  if (typeof v === 'number') return Number.isFinite(v) ? String(v) : Number.isNaN(v) ? 'NaN' : v > 0 ? 'Infinity' : '-Infinity';
  if (typeof v === 'string' || v instanceof String) return jsonString(String(v), ensureAscii);
  const nl = indent === null ? '' : '\n' + ' '.repeat(indent * (level + 1));
  const end = indent === null ? '' : '\n' + ' '.repeat(indent * level);
  const sep = indent === null ? ', ' : ',';
  if (Array.isArray(v)) {
    if (v.length === 0) return '[]';
    return '[' + v.map((x) => nl + pyJson(x, indent, sortKeys, ensureAscii, level + 1)).join(sep) + end + ']';
  }
  if (typeof v === 'object') {
    const keys = [...keysOf(v as object)];
    if (sortKeys) keys.sort();
    if (keys.length === 0) return '{}';
    return (
      '{' +
      keys.map((k) => nl + jsonString(k, ensureAscii) + ': ' + pyJson((v as Record<string, unknown>)[k], indent, sortKeys, ensureAscii, level + 1)).join(sep) +
      end +
      '}'
    );
  }
  return jsonString(String(v), ensureAscii);
}

/** YAML text of a value as Salt's `yaml` filter prints it (PyYAML's layout, see py-yaml-dump.ts). */
export function toYaml(v: unknown, flow: boolean | null = true, allowUnicode = true): string {
  // The dumper reads boxed strings as strings and sorts keys: the value needs no plain copy first.
  return pyYamlDump(v, flow, allowUnicode);
}

/** A YAML double-quoted scalar. */
export function yamlDquote(v: unknown): string {
  return JSON.stringify(v instanceof String ? v.toString() : typeof v === 'string' ? v : String(v));
}

/** A YAML single-quoted scalar. */
export function yamlSquote(v: unknown): string {
  const s = v instanceof String ? v.toString() : String(v);
  return "'" + s.replace(/'/g, "''") + "'";
}

/** A scalar encoded as YAML (quoted when YAML would read it back as something else). */
export function yamlEncode(v: unknown): string {
  if (v === null || v === undefined) return 'null';
  if (typeof v === 'boolean') return v ? 'true' : 'false';
  return toYaml(v, true);
}
