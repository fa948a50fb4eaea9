import { existsSync } from 'node:fs';
import { readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

/**
 * One-line apt sources (sources.list and sources.list.d/*.list) read, matched and written the
 * way Salt's aptpkg does it through python-apt's aptsources: same parse, same validity rules,
 * same regenerated lines on save. deb822 `.sources` files are not read (nor are they by Salt).
 */

export interface Entry {
  /** The file as the host sees it (/etc/apt/...), whatever root the module works in. */
  file: string;
  line: string;
  /** python-apt's verdict (options other than arch/trusted, such as signed-by, make it invalid). */
  invalid: boolean;
  disabled: boolean;
  type: string;
  architectures: string[];
  trusted: boolean | null;
  uri: string;
  dist: string;
  comps: string[];
  comment: string;
}

const TYPES = ['deb', 'deb-src', 'rpm', 'rpm-src'];

/** python-apt's split: whitespace separates, except inside [...]. */
export function mysplit(text: string): string[] {
  const line = text.trim();
  const pieces: string[] = [];
  let tmp = '';
  let inBracket = false;
  let space = false;
  for (const ch of line) {
    if (ch === '[') {
      if (space) {
        space = false;
        pieces.push(tmp);
        tmp = ch;
      } else tmp += ch;
      inBracket = true;
    } else if (ch === ']') {
      inBracket = false;
      tmp += ch;
    } else if (space && !/\s/.test(ch)) {
      space = false;
      pieces.push(tmp);
      tmp = ch;
    } else if (/\s/.test(ch) && !inBracket) space = true;
    else tmp += ch;
  }
  if (tmp) pieces.push(tmp);
  return pieces;
}

export function parseEntry(raw: string, file: string): Entry {
  const e: Entry = { file, line: raw, invalid: false, disabled: false, type: '', architectures: [], trusted: null, uri: '', dist: '', comps: [], comment: '' };
  let line = raw.trim();
  if (line === '' || line === '#') return { ...e, invalid: true };
  if (line.startsWith('#')) {
    e.disabled = true;
    const first = line.slice(1).trim().split(/\s+/)[0] ?? '';
    if (!TYPES.includes(first)) return { ...e, invalid: true };
    line = line.slice(1);
  }
  const hash = line.indexOf('#');
  if (hash > 0) {
    e.comment = line.slice(hash + 1);
    line = line.slice(0, hash);
  }
  const pieces = mysplit(line);
  if (pieces.length < 3) return { ...e, invalid: true };
  e.type = pieces[0]!.trim();
  if (!TYPES.includes(e.type)) return { ...e, invalid: true };
  if (pieces[1]!.trim().startsWith('[')) {
    for (const opt of pieces
      .splice(1, 1)[0]!
      .replace(/^\[+|\]+$/g, '')
      .split(/\s+/)
      .filter(Boolean)) {
      const i = opt.indexOf('=');
      if (i < 0) e.invalid = true;
      else if (opt.slice(0, i) === 'arch') e.architectures = opt.slice(i + 1).split(',');
      else if (opt.slice(0, i) === 'trusted') e.trusted = ['yes', 'true', 'with', 'on', 'enable'].includes(opt.slice(i + 1).toLowerCase());
      else e.invalid = true;
    }
  }
  e.uri = (pieces[1] ?? '').trim();
  if (!e.uri) e.invalid = true;
  e.dist = (pieces[2] ?? '').trim();
  e.comps = pieces.slice(3);
  return e;
}

/** The entry's line as python-apt writes it back (invalid ones verbatim). */
export function entryText(e: Entry): string {
  if (e.invalid) return e.line;
  let line = e.disabled ? '# ' : '';
  line += e.type;
  const yes = e.trusted ? 'yes' : 'no';
  if (e.architectures.length && e.trusted !== null) line += ` [arch=${e.architectures.join(',')} trusted=${yes}]`;
  else if (e.trusted !== null) line += ` [trusted=${yes}]`;
  else if (e.architectures.length) line += ` [arch=${e.architectures.join(',')}]`;
  line += ` ${e.uri} ${e.dist}`;
  if (e.comps.length) line += ` ${e.comps.join(' ')}`;
  if (e.comment !== '') line += ` #${e.comment}`;
  return `${line}\n`;
}

/** Salt's own validity check (aptpkg._invalid): lenient about options in brackets. */
export function saltInvalid(text: string): boolean {
  let line = text.trim();
  if (!line) return true;
  if (line.startsWith('#')) line = line.slice(1);
  const i = line.indexOf('#');
  if (i > 0) line = line.slice(0, i);
  const cdrom = /(.*)(cdrom:.*\/)(.*)/.exec(line.trim());
  const words = cdrom
    ? [...cdrom[1]!.split(/\s+/).filter(Boolean), cdrom[2]!.trim(), ...cdrom[3]!.split(/\s+/).filter(Boolean)]
    : line.trim().split(/\s+/).filter(Boolean);
  if (!words.length || !TYPES.includes(words[0]!) || words.length < 3) return true;
  if (words[1]!.startsWith('[') && !words.slice(1).some((w) => w.endsWith(']'))) return true;
  return false;
}

/** The options in a line's brackets, in order: name -> full text and value (signed-by as signedby). */
export function lineOptions(line: string): Map<string, { full: string; value: string }> {
  const out = new Map<string, { full: string; value: string }>();
  const m = /\[(.*=.*?)\]/.exec(line);
  if (!m) return out;
  const archs: string[] = [];
  for (const opt of m[1]!.split(/\s+/).filter(Boolean)) {
    const value = opt.split('=').slice(1).join('=');
    if (opt.startsWith('arch')) {
      archs.push(...value.split(','));
      out.set('arch', { full: opt, value: archs.join(',') });
    } else if (opt.startsWith('signed-by')) out.set('signedby', { full: opt, value });
    else out.set(opt.split('=')[0]!, { full: opt, value });
  }
  return out;
}

export const signedByOf = (line: string): string => lineOptions(line).get('signedby')?.value ?? '';

/** Where the module reads and writes: the host's /etc/apt, or the same under another root. */
export class SourcesList {
  list: Entry[] = [];
  private readonly root: string;
  readonly sourcelist;
  constructor(root: string, sourcelist = '/etc/apt/sources.list') {
    this.root = root;
    this.sourcelist = sourcelist;
  }

  real(path: string): string {
    return this.root === '/' ? path : join(this.root, path);
  }

  async load(): Promise<this> {
    this.list = [];
    const files: string[] = [];
    if (existsSync(this.real(this.sourcelist))) files.push(this.sourcelist);
    const parts = '/etc/apt/sources.list.d';
    if (existsSync(this.real(parts))) {
      for (const f of (await readdir(this.real(parts))).sort()) if (f.endsWith('.list')) files.push(`${parts}/${f}`);
    }
    for (const file of files) {
      const text = await readFile(this.real(file), 'utf8').catch(() => undefined);
      if (text === undefined) continue;
      for (const raw of text.split(/(?<=\n)/)) if (raw) this.list.push(parseEntry(raw, file));
    }
    return this;
  }

  async save(): Promise<void> {
    if (!this.list.length) {
      await writeFile(
        this.real(this.sourcelist),
        '## See sources.list(5) for more information, especialy\n# Remember that you can only use http, ftp or file URIs\n# CDROMs are managed through the apt-cdrom tool.\n',
      );
      return;
    }
    const byFile = new Map<string, string[]>();
    for (const e of this.list) (byFile.get(e.file) ?? byFile.set(e.file, []).get(e.file)!).push(entryText(e));
    for (const [file, lines] of byFile) await writeFile(this.real(file), lines.join(''));
  }

  /** python-apt's SourcesList.add without a file: an existing entry it would reuse, or a new one. */
  add(type: string, uri: string, dist: string, comps: string[], architectures: string[]): Entry {
    const archs = new Set(architectures);
    const sameArchs = (e: Entry) => e.architectures.length === archs.size && e.architectures.every((a) => archs.has(a));
    const found = (disabled?: boolean) =>
      this.list.filter(
        (e) =>
          (!uri || !e.uri || uri.replace(/\/+$/, '') === e.uri.replace(/\/+$/, '')) &&
          sameArchs(e) &&
          !e.invalid &&
          e.type === type &&
          e.dist === dist &&
          (disabled === undefined || e.disabled === disabled),
      );
    let want = [...comps];
    for (const e of found(false)) {
      for (const c of [...want]) {
        if (e.comps.includes(c)) {
          want = want.filter((_x, i) => i !== want.indexOf(c));
          if (!want.length) return e;
        }
      }
    }
    const sameSet = (a: string[], b: string[]) => [...new Set(a)].sort().join(' ') === [...new Set(b)].sort().join(' ');
    for (const e of found()) {
      if (!e.disabled) {
        if (!sameSet(e.comps, want)) e.comps = [...new Set([...e.comps, ...want])];
        return e;
      }
      if (sameSet(e.comps, want)) {
        e.disabled = false;
        return e;
      }
    }
    const line = ['', type, archs.size ? `[arch=${[...archs].join(',')}]` : '', uri, dist, ...want].filter(Boolean).join(' ') + '\n';
    const entry = parseEntry(line, this.sourcelist);
    this.list.push(entry);
    return entry;
  }
}

/** Salt's repo dict for an entry (list_repos). */
export function repoDict(e: Entry): Record<string, unknown> {
  return {
    file: e.file,
    comps: e.comps,
    disabled: e.disabled,
    dist: e.dist,
    type: e.type,
    uri: e.uri,
    line: e.line.trim(),
    architectures: e.architectures,
    signedby: signedByOf(e.line),
  };
}

/** Salt's _skip_source: invalid entries count when they carry bracket options (signed-by). */
function skipped(e: Entry): boolean {
  if (!e.invalid) return false;
  if (!(e.uri && ['deb', 'deb-src', 'rpm', 'rpm-src'].includes(e.type))) return true;
  const pieces = e.line.trim().replace(/^#\s*/, '').split(/\s+/);
  return !(pieces[1]?.startsWith('[') && pieces[1] !== '[]');
}

export function listRepos(sources: SourcesList): Record<string, ReturnType<typeof repoDict>[]> {
  const out: Record<string, ReturnType<typeof repoDict>[]> = {};
  for (const e of sources.list) if (!skipped(e)) (out[e.uri] ??= []).push(repoDict(e));
  return out;
}
