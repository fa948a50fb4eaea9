import { createHash, getHashes } from 'node:crypto';
import { existsSync, lstatSync, readdirSync, readFileSync, realpathSync, statSync, type Stats } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { globMatch } from '@brine/core';
import { execErrors } from '../errors.js';
import type { ExecFunction } from '../function.js';
import { groupName, userName } from '../host/accounts.js';

/** Python's os.path.expanduser for `~` and `~/...` (the running user's home). */
function expand(p: string): string {
  return p === '~' || p.startsWith('~/') ? path.join(os.homedir(), p.slice(1)) : p;
}

function isFile(p: string): boolean {
  try {
    return statSync(p).isFile();
  } catch {
    return false;
  }
}

function isDir(p: string): boolean {
  try {
    return statSync(p).isDirectory();
  } catch {
    return false;
  }
}

function fail(fun: string, detail: string): never {
  throw execErrors.make('BRINE_ERR_EXEC_FAILED', { fun, detail });
}

/** Python's errno text for a failed open, as Salt's error shows it. */
function ioError(e: NodeJS.ErrnoException, p: string): string {
  if (e.code === 'ENOENT') return `[Errno 2] No such file or directory: '${p}'`;
  if (e.code === 'EACCES') return `[Errno 13] Permission denied: '${p}'`;
  if (e.code === 'EISDIR') return `[Errno 21] Is a directory: '${p}'`;
  return e.message;
}

export function fileHash(fun: string, p: string, form: string): string {
  if (!getHashes().includes(form)) fail(fun, `Invalid hash type: ${form}`);
  try {
    return createHash(form).update(readFileSync(p)).digest('hex');
  } catch (e) {
    return fail(fun, ioError(e as NodeJS.ErrnoException, p));
  }
}

/** Python's st_atime and friends: seconds plus 1e-9 times nanoseconds, as a double. */
function pySeconds(ns: bigint): number {
  return Number(ns / 1_000_000_000n) + 1e-9 * Number(ns % 1_000_000_000n);
}

function typeName(s: Stats): string {
  if (s.isDirectory()) return 'dir';
  if (s.isCharacterDevice()) return 'char';
  if (s.isBlockDevice()) return 'block';
  if (s.isSymbolicLink()) return 'link';
  if (s.isFIFO()) return 'pipe';
  if (s.isSocket()) return 'socket';
  return 'file';
}

/** The letters of find's type= option, as Salt's Finder reads them. */
const FIND_TYPES: Record<string, (s: Stats) => boolean> = {
  a: () => true,
  b: (s) => s.isBlockDevice(),
  c: (s) => s.isCharacterDevice(),
  d: (s) => s.isDirectory(),
  p: (s) => s.isFIFO(),
  f: (s) => s.isFile(),
  l: (s) => s.isSymbolicLink(),
  s: (s) => s.isSocket(),
};

const FIND_OPTIONS = new Set(['name', 'iname', 'regex', 'iregex', 'type', 'maxdepth', 'mindepth', 'print']);

function find(root: string, opts: Record<string, unknown>): string[] {
  for (const k of Object.keys(opts)) if (!FIND_OPTIONS.has(k)) fail('file.find', `unsupported option ${k} (supported: ${[...FIND_OPTIONS].join(', ')})`);
  const types = String(opts.type ?? 'a');
  const tests: ((full: string, base: string, st: Stats) => boolean)[] = [];
  if (opts.name !== undefined) tests.push((_f, b) => globMatch(b, String(opts.name)));
  if (opts.iname !== undefined) tests.push((_f, b) => globMatch(b.toLowerCase(), String(opts.iname).toLowerCase()));
  if (opts.regex !== undefined) tests.push((_f, b) => new RegExp(`^(?:${String(opts.regex)})`).test(b));
  if (opts.iregex !== undefined) tests.push((_f, b) => new RegExp(`^(?:${String(opts.iregex)})`, 'i').test(b));
  tests.push((_f, _b, st) => [...types].some((t) => FIND_TYPES[t]?.(st) ?? fail('file.find', `unknown type ${t}`)));
  const maxdepth = opts.maxdepth === undefined ? Infinity : Number(opts.maxdepth);
  const mindepth = opts.mindepth === undefined ? 0 : Number(opts.mindepth);
  const printName = opts.print === 'name';
  const out: string[] = [];
  const visit = (full: string, depth: number) => {
    let st: Stats;
    try {
      st = lstatSync(full);
    } catch {
      return;
    }
    const base = path.basename(full);
    if (depth >= mindepth && depth <= maxdepth && tests.every((t) => t(full, base, st))) out.push(printName ? path.basename(full) : full);
    if (st.isDirectory() && depth < maxdepth) {
      let names: string[] = [];
      try {
        names = readdirSync(full);
      } catch {
        return;
      }
      for (const n of names) visit(path.join(full, n), depth + 1);
    }
  };
  visit(root, 0);
  return out;
}

/** Salt's file module: the read-only functions formulas and operators ask. */
export const fileFunctions: ExecFunction[] = [
  {
    name: 'file.file_exists',
    doc: 'True if the path is a file (symlinks followed).',
    params: [{ name: 'path', type: 'string', required: true }],
    run: (a) => ({ return: isFile(expand(a.path as string)) }),
  },
  {
    name: 'file.directory_exists',
    doc: 'True if the path is a directory (symlinks followed).',
    params: [{ name: 'path', type: 'string', required: true }],
    run: (a) => ({ return: isDir(expand(a.path as string)) }),
  },
  {
    name: 'file.exists',
    doc: 'True if the path exists.',
    params: [{ name: 'path', type: 'string', required: true }],
    run: (a) => ({ return: existsSync(expand(a.path as string)) }),
  },
  {
    name: 'file.contains',
    doc: 'True if the file holds the text (surrounding whitespace stripped); False when it is missing or unreadable.',
    params: [
      { name: 'path', type: 'string', required: true },
      { name: 'text', type: 'any', required: true },
    ],
    run: (a) => {
      try {
        return { return: readFileSync(expand(a.path as string), 'utf8').includes(String(a.text).trim()) };
      } catch {
        return { return: false };
      }
    },
  },
  {
    name: 'file.contains_regex',
    doc: 'True if a line of the file matches the regex (after stripping lchar from its start).',
    params: [
      { name: 'path', type: 'string', required: true },
      { name: 'regex', type: 'string', required: true },
      { name: 'lchar', type: 'string', default: '' },
    ],
    run: (a) => {
      let text: string;
      try {
        text = readFileSync(expand(a.path as string), 'utf8');
      } catch {
        return { return: false };
      }
      const re = new RegExp(a.regex as string);
      const strip = a.lchar as string;
      const lines = text.split(/(?<=\n)/);
      return {
        return: lines.some((l) => {
          let s = l;
          while (strip && s.length && strip.includes(s[0]!)) s = s.slice(1);
          return re.test(s);
        }),
      };
    },
  },
  {
    name: 'file.read',
    doc: 'The contents of the file.',
    params: [
      { name: 'path', type: 'string', required: true },
      { name: 'binary', type: 'boolean', default: false },
    ],
    run: (a) => {
      try {
        return { return: readFileSync(expand(a.path as string), 'utf8') };
      } catch (e) {
        return fail('file.read', ioError(e as NodeJS.ErrnoException, a.path as string));
      }
    },
  },
  {
    name: 'file.get_hash',
    doc: 'The hex digest of the file (form: sha256 by default, or md5, sha1, sha512, ...).',
    params: [
      { name: 'path', type: 'string', required: true },
      { name: 'form', type: 'string', default: 'sha256' },
      { name: 'chunk_size', type: 'number' },
    ],
    run: (a) => ({ return: fileHash('file.get_hash', expand(a.path as string), a.form as string) }),
  },
  {
    name: 'file.stats',
    doc: 'inode, uid, gid, user, group, times, size, mode, type and target of the path (sum too with hash_type).',
    params: [
      { name: 'path', type: 'string', required: true },
      { name: 'hash_type', type: 'string' },
      { name: 'follow_symlinks', type: 'boolean', default: true },
    ],
    run: async (a, ctx) => {
      const p = expand(a.path as string);
      const follow = a.follow_symlinks !== false;
      let st: Stats;
      try {
        st = follow && existsSync(p) ? statSync(p) : lstatSync(p);
      } catch {
        return fail('file.stats', `Path not found: ${p}`);
      }
      const ns = follow && existsSync(p) ? statSync(p, { bigint: true }) : lstatSync(p, { bigint: true });
      const ret: Record<string, unknown> = {
        inode: st.ino,
        uid: st.uid,
        gid: st.gid,
        group: await groupName(ctx.cmd, st.gid),
        user: await userName(ctx.cmd, st.uid),
        atime: pySeconds(ns.atimeNs),
        mtime: pySeconds(ns.mtimeNs),
        ctime: pySeconds(ns.ctimeNs),
        size: st.size,
        mode: (st.mode & 0o7777).toString(8).padStart(4, '0'),
      };
      if (typeof a.hash_type === 'string') ret.sum = fileHash('file.stats', p, a.hash_type);
      ret.type = typeName(st);
      let target = path.resolve(p);
      if (follow) {
        try {
          target = realpathSync(p);
        } catch {
          /* a broken link: its own path, as Python's realpath gives */
        }
      }
      ret.target = target;
      return { return: ret };
    },
  },
  {
    name: 'file.find',
    doc: 'Paths under path matching name=, iname=, regex=, iregex=, type= (f, d, l, ...), mindepth=, maxdepth=; print=name for base names. Sorted.',
    params: [{ name: 'path', type: 'string', required: true }],
    varArgs: true,
    extraKwargs: true,
    run: (a) => {
      const opts = { ...(a.kwargs as Record<string, unknown>) };
      if ((a.args as unknown[]).includes('print')) opts.print = 'path';
      return { return: find(expand(a.path as string), opts).sort() };
    },
  },
  {
    name: 'file.join',
    doc: "Joins path parts as Python's os.path.join (an absolute part restarts the path).",
    params: [],
    varArgs: true,
    run: (a) => {
      let out = '';
      for (const part of (a.args as unknown[]).map(String)) {
        if (part.startsWith('/')) out = part;
        else if (out === '' || out.endsWith('/')) out += part;
        else out += '/' + part;
      }
      return { return: out };
    },
  },
  {
    name: 'file.basename',
    doc: "The last part of the path (Python's os.path.basename: '' after a trailing slash).",
    params: [{ name: 'path', type: 'string', required: true }],
    run: (a) => ({ return: (a.path as string).slice((a.path as string).lastIndexOf('/') + 1) }),
  },
  {
    name: 'file.dirname',
    doc: "The path without its last part (Python's os.path.dirname).",
    params: [{ name: 'path', type: 'string', required: true }],
    run: (a) => {
      const p = a.path as string;
      const i = p.lastIndexOf('/') + 1;
      const head = p.slice(0, i);
      // Python strips trailing slashes from the head unless it is all slashes
      return { return: head && !/^\/+$/.test(head) ? head.replace(/\/+$/, '') : head };
    },
  },
];
