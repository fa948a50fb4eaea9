/**
 * The other serializers file.serialize offers, each laid out as the Python library Salt calls
 * writes it: toml (the `toml` 0.10 package), configparser (an ini file) and plist (plistlib XML).
 */

const isDict = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Python's repr of a float as toml and plistlib print it (1.5, 2.0, 1e+20). */
function pyFloat(n: number): string {
  if (Number.isInteger(n) && Math.abs(n) < 1e16) return `${n}.0`;
  return String(n).replace(/e\+?/, (m) => (m === 'e' ? 'e' : 'e+'));
}

function tomlValue(v: unknown): string {
  if (typeof v === 'string') return JSON.stringify(v);
  if (typeof v === 'boolean') return v ? 'true' : 'false';
  if (typeof v === 'number') return Number.isInteger(v) ? String(v) : pyFloat(v);
  if (Array.isArray(v)) return `[${v.map((x) => ` ${tomlValue(x)},`).join('')}]`;
  if (isDict(v))
    return `{ ${Object.entries(v)
      .map(([k, x]) => `${tomlKey(k)} = ${tomlValue(x)}`)
      .join(', ')} }`;
  return String(v);
}

const tomlKey = (k: string) => (/^[A-Za-z0-9_-]+$/.test(k) ? k : JSON.stringify(k));

function tomlSections(o: Record<string, unknown>): [string, Array<[string, Record<string, unknown>]>] {
  let out = '';
  const subs: Array<[string, Record<string, unknown>]> = [];
  for (const [k, v] of Object.entries(o)) {
    if (v === null || v === undefined) continue;
    if (isDict(v)) subs.push([tomlKey(k), v]);
    else out += `${tomlKey(k)} = ${tomlValue(v)}\n`;
  }
  return [out, subs];
}

/** toml.dumps: top-level values, then tables breadth first ([a], [b], then [a.c]). */
export function tomlDump(data: unknown): string {
  if (!isDict(data)) throw new Error('toml can only serialize dictionaries');
  let [out, sections] = tomlSections(data);
  while (sections.length) {
    const next: Array<[string, Record<string, unknown>]> = [];
    for (const [name, body] of sections) {
      const [values, subs] = tomlSections(body);
      if (values || !subs.length) {
        if (out && !out.endsWith('\n\n')) out += '\n';
        out += `[${name}]\n${values}`;
      }
      for (const [s, b] of subs) next.push([`${name}.${s}`, b]);
    }
    sections = next;
  }
  return out;
}

/** configparser: one [section] a dict, keys lowercased, values as Python's str(). */
export function iniDump(data: unknown): string {
  if (!isDict(data)) throw new Error(`configparser can only serialize dictionaries, not ${Array.isArray(data) ? "<class 'list'>" : typeof data}`);
  const py = (v: unknown) => (v === true ? 'True' : v === false ? 'False' : typeof v === 'number' && !Number.isInteger(v) ? pyFloat(v) : String(v));
  const ordered = [...Object.entries(data)].sort(([a], [b]) => Number(b === 'DEFAULT') - Number(a === 'DEFAULT'));
  let out = '';
  for (const [section, keys] of ordered) {
    out += `[${section}]\n`;
    for (const [k, v] of Object.entries(isDict(keys) ? keys : {})) {
      out += v === null || v === undefined ? `${k.toLowerCase()}\n` : `${k.toLowerCase()} = ${py(v).replace(/\n/g, '\n\t')}\n`;
    }
    out += '\n';
  }
  return out;
}

const xmlEscape = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

function plistNode(v: unknown, depth: number): string {
  const pad = '\t'.repeat(depth);
  if (typeof v === 'string') return `${pad}<string>${xmlEscape(v)}</string>\n`;
  if (typeof v === 'boolean') return `${pad}<${v}/>\n`;
  if (typeof v === 'number') return Number.isInteger(v) ? `${pad}<integer>${v}</integer>\n` : `${pad}<real>${pyFloat(v)}</real>\n`;
  if (Array.isArray(v)) return v.length ? `${pad}<array>\n${v.map((x) => plistNode(x, depth + 1)).join('')}${pad}</array>\n` : `${pad}<array/>\n`;
  if (isDict(v)) {
    const keys = Object.keys(v).sort();
    if (!keys.length) return `${pad}<dict/>\n`;
    return `${pad}<dict>\n${keys.map((k) => `${pad}\t<key>${xmlEscape(k)}</key>\n${plistNode(v[k], depth + 1)}`).join('')}${pad}</dict>\n`;
  }
  throw new Error(`unsupported type: ${v === null ? "<class 'NoneType'>" : typeof v}`);
}

/** plistlib.dumps (XML, keys sorted, tab indented); Salt writes the bytes without a newline. */
export function plistDump(data: unknown): string {
  return (
    '<?xml version="1.0" encoding="UTF-8"?>\n<!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">\n<plist version="1.0">\n' +
    plistNode(data, 0) +
    '</plist>\n'
  );
}
