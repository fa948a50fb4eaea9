/**
 * The `salt` object templates call (`salt['pillar.get'](...)` or `salt.pillar.get(...)`): the
 * execution functions real formulas use at render time, answered from grains, pillar and opts.
 */
import { describeHostCall, HostCallError, type HostCallRecorder } from './host-calls.js';
import { PY_OBJECT, type PyObjectHooks } from './py-object.js';
import { bindArgs, isDict, splitArgs, str, truthy } from './python.js';
import { deepCopy, dictUpdate, isMissing, mergeWithStrategy, traverse, traverseRaw } from './traverse.js';
import { createHash, createHmac } from 'node:crypto';
import { globMatch, keysOf } from '@brine/core';
import { slsutilDeserialize, slsutilSerialize } from './slsutil-serialize.js';

export type HelperFn = (...args: any[]) => unknown;
export type HelperTable = Record<string, Record<string, HelperFn>>;
export type LogLevel = 'debug' | 'info' | 'warning' | 'error' | 'critical';

export interface HelperData {
  grains: Record<string, unknown>;
  pillar: Record<string, unknown>;
  opts: Record<string, unknown>;
  /** Files of the current env (for cp.list_master / cp.list_master_dirs). */
  listFiles?: () => string[];
  log?: (level: LogLevel, message: string) => void;
}

function lookup(data: unknown, raw: unknown[]): unknown {
  const a = bindArgs(raw, ['key', 'default', 'delimiter'], { default: '', delimiter: ':' });
  return traverse(data, str(a.key), a.default, str(a.delimiter));
}

function filterBy(grains: Record<string, unknown>, raw: unknown[]): unknown {
  const a = bindArgs(raw, ['lookup_dict', 'grain', 'merge', 'default', 'base'], {
    grain: 'os_family',
    merge: null,
    default: 'default',
    base: null,
  });
  const table = (a.lookup_dict ?? {}) as Record<string, unknown>;
  const val = traverse(grains, str(a.grain), [], ':');
  let ret: unknown = null;
  outer: for (const each of Array.isArray(val) ? val : [val]) {
    for (const key of keysOf(table)) {
      if (globMatch(str(each), key)) {
        ret = table[key];
        break outer;
      }
    }
  }
  if (ret === null || ret === undefined) ret = table[str(a.default)] ?? null;
  if (a.base !== null && a.base !== undefined && str(a.base) in table) {
    const base = table[str(a.base)];
    if (ret === null) ret = base;
    else if (isDict(base)) {
      if (!isDict(ret)) throw new Error('filter_by default and look-up values must both be dictionaries.');
      ret = dictUpdate(deepCopy(base), ret);
    }
  }
  if (truthy(a.merge)) {
    if (!isDict(a.merge)) throw new Error('filter_by merge argument must be a dictionary.');
    if (ret === null) ret = a.merge;
    else if (isDict(ret)) dictUpdate(ret, deepCopy(a.merge));
  }
  return ret;
}

function posixJoin(parts: string[]): string {
  return parts.reduce((acc, p) => (p.startsWith('/') ? p : acc === '' || acc.endsWith('/') ? acc + p : acc + '/' + p), '');
}

/** The built-in helpers, bound to one render's data. */
export function builtinHelpers(d: HelperData): HelperTable {
  const configGet = (...raw: unknown[]) => {
    const a = bindArgs(raw, ['key', 'default', 'delimiter'], { default: '', delimiter: ':' });
    for (const src of [d.opts, d.grains, d.pillar]) {
      const v = traverseRaw(src, str(a.key), str(a.delimiter));
      if (!isMissing(v)) return v;
    }
    return a.default;
  };
  return {
    pillar: pillarHelpers(d),
    grains: {
      get: (...raw: unknown[]) => lookup(d.grains, raw),
      items: () => d.grains,
      item: (...keys: unknown[]) => Object.fromEntries(keys.filter((k) => typeof k === 'string').map((k) => [k, traverse(d.grains, k as string, '')])),
      filter_by: (...raw: unknown[]) => filterBy(d.grains, raw),
      has_value: (key: unknown) => truthy(traverse(d.grains, str(key), null)),
      ls: () => Object.keys(d.grains).sort(),
    },
    config: {
      get: configGet,
      option: (...raw: unknown[]) => lookup(d.opts, raw),
    },
    slsutil: slsutilHelpers(),
    defaults: defaultsHelpers(),
    log: logHelpers(d),
    file: fileHelpers(),
    test: {
      true: () => true,
      false: () => false,
      ping: () => true,
    },
    cp: cpHelpers(d),
    hashutil: hashutilHelpers(),
  };
}

/**
 * hashutil's functions of strings (pure, so answered where the template renders); those that
 * read or write files (digest_file, base64_encodefile, base64_decodefile) are asked of the host.
 */
function hashutilHelpers(): HelperTable[string] {
  const hex = (algo: string) => (v: unknown) => createHash(algo).update(str(v)).digest('hex');
  const digests: Record<string, (v: unknown) => string> = { md5: hex('md5'), sha256: hex('sha256'), sha512: hex('sha512') };
  const hmacHex = (algo: string, value: unknown, secret: unknown) => createHmac(algo, str(secret)).update(str(value)).digest('hex');
  return {
    digest: (...raw: unknown[]) => {
      const a = bindArgs(raw, ['instr', 'checksum'], { checksum: 'md5' });
      const fn = Object.hasOwn(digests, str(a.checksum)) ? digests[str(a.checksum)] : undefined;
      if (!fn) throw new Error(`Hash func '${str(a.checksum)}' is not supported.`);
      return fn(a.instr);
    },
    md5_digest: digests.md5!,
    sha256_digest: digests.sha256!,
    sha512_digest: digests.sha512!,
    base64_b64encode: (v: unknown) => Buffer.from(str(v)).toString('base64'),
    base64_b64decode: (v: unknown) => Buffer.from(str(v), 'base64').toString(),
    // the MIME form: a newline after every 76 characters and at the end
    base64_encodestring: (v: unknown) =>
      (
        Buffer.from(str(v))
          .toString('base64')
          .match(/.{1,76}/g) ?? []
      )
        .map((l) => `${l}\n`)
        .join(''),
    base64_decodestring: (v: unknown) => Buffer.from(str(v).replace(/\s+/g, ''), 'base64').toString(),
    hmac_signature: (value: unknown, secret: unknown, challenge: unknown) =>
      createHmac('sha256', str(secret)).update(str(value)).digest('base64') === str(challenge),
    hmac_compute: (value: unknown, secret: unknown) => hmacHex('sha256', value, secret),
    github_signature: (value: unknown, secret: unknown, challenge: unknown) => {
      const [algo = '', sig = ''] = str(challenge).split('=');
      if (!['sha1', 'sha256', 'sha512', 'md5'].includes(algo)) throw new Error(`hash type '${algo}' is not supported`);
      return hmacHex(algo, value, secret) === sig;
    },
  };
}

/** pillar.get, items, item and raw. */
function pillarHelpers(d: HelperData): HelperTable[string] {
  return {
    get(...raw: unknown[]) {
      const a = bindArgs(raw, ['key', 'default', 'merge', 'merge_nested_lists', 'delimiter'], {
        default: '',
        merge: false,
        merge_nested_lists: false,
        delimiter: ':',
      });
      const found = traverseRaw(d.pillar, str(a.key), str(a.delimiter));
      if (truthy(a.merge) && isDict(a.default)) {
        if (isDict(found)) return dictUpdate(deepCopy(a.default), found, truthy(a.merge_nested_lists));
        return isMissing(found) ? a.default : found;
      }
      return isMissing(found) ? a.default : found;
    },
    items: () => d.pillar,
    item: (...keys: unknown[]) => Object.fromEntries(keys.filter((k) => typeof k === 'string').map((k) => [k, traverse(d.pillar, k as string, '')])),
    raw: () => d.pillar,
  };
}

/** slsutil.merge, update, merge_all and the serializers. */
function slsutilHelpers(): HelperTable[string] {
  return {
    merge(...raw: unknown[]) {
      const a = bindArgs(raw, ['obj_a', 'obj_b', 'strategy', 'renderer', 'merge_lists'], { strategy: 'smart', merge_lists: false });
      return mergeWithStrategy(a.obj_a, a.obj_b, str(a.strategy), truthy(a.merge_lists));
    },
    update(...raw: unknown[]) {
      const a = bindArgs(raw, ['dest', 'upd', 'recursive_update', 'merge_lists'], { recursive_update: true, merge_lists: false });
      if (!isDict(a.dest)) return a.dest;
      if (!truthy(a.recursive_update)) return Object.assign(a.dest, a.upd);
      return dictUpdate(a.dest, a.upd, truthy(a.merge_lists));
    },
    merge_all(...raw: unknown[]) {
      const a = bindArgs(raw, ['lst', 'strategy', 'merge_lists'], { strategy: 'smart', merge_lists: false });
      return ((a.lst as unknown[]) ?? []).reduce((acc, x) => mergeWithStrategy(acc, x, str(a.strategy), truthy(a.merge_lists)), {});
    },
    serialize: slsutilSerialize,
    deserialize: slsutilDeserialize,
  };
}

/** defaults.merge, deepcopy and update. */
function defaultsHelpers(): HelperTable[string] {
  return {
    merge(...raw: unknown[]) {
      const a = bindArgs(raw, ['dest', 'src', 'merge_lists', 'in_place'], { merge_lists: false, in_place: true });
      const dest = truthy(a.in_place) ? a.dest : deepCopy(a.dest);
      if (!isDict(dest)) return dest;
      return dictUpdate(dest, a.src, truthy(a.merge_lists));
    },
    deepcopy: (v: unknown) => deepCopy(v),
    update(...raw: unknown[]) {
      const a = bindArgs(raw, ['dest', 'defaults', 'merge_lists', 'in_place'], { merge_lists: true, in_place: true });
      if (!isDict(a.dest)) return a.dest;
      const dest = truthy(a.in_place) ? a.dest : deepCopy(a.dest);
      return dictUpdate(dest, a.defaults, truthy(a.merge_lists));
    },
  };
}

/** log.debug and friends: to the render's log, rendering as nothing. */
function logHelpers(d: HelperData): HelperTable[string] {
  const log =
    (level: LogLevel) =>
    (...raw: unknown[]) => {
      d.log?.(level, raw.map(str).join(' '));
      return '';
    };
  return {
    debug: log('debug'),
    info: log('info'),
    warning: log('warning'),
    warn: log('warning'),
    error: log('error'),
    critical: log('critical'),
    exception: log('error'),
  };
}

/** file.dirname, basename, join and normpath (POSIX paths). */
function fileHelpers(): HelperTable[string] {
  return {
    dirname: (p: unknown) => {
      const s = str(p);
      const i = s.lastIndexOf('/');
      return i < 0 ? '' : i === 0 ? '/' : s.slice(0, i).replace(/\/+$/, '') || '/';
    },
    basename: (p: unknown) => {
      const s = str(p);
      return s.slice(s.lastIndexOf('/') + 1);
    },
    join: (...parts: unknown[]) => posixJoin(parts.filter((p) => typeof p === 'string') as string[]),
    normpath: (p: unknown) =>
      str(p)
        .replace(/\/+/g, '/')
        .replace(/\/\.(?=\/|$)/g, '') || '.',
  };
}

/** cp.list_master and list_master_dirs. */
function cpHelpers(d: HelperData): HelperTable[string] {
  return {
    list_master: () => d.listFiles?.() ?? [],
    list_master_dirs: () => {
      const dirs = new Set<string>();
      for (const f of d.listFiles?.() ?? []) {
        const parts = f.split('/');
        for (let i = 1; i < parts.length; i++) dirs.add(parts.slice(0, i).join('/'));
      }
      return [...dirs].sort();
    },
  };
}

/** A lookup that answers from the object's own keys first, then from `fallback`. */
function withFallback(obj: Record<string, unknown>, fallback: (key: string) => unknown): Record<string, unknown> {
  const hooks: PyObjectHooks = {
    lookup: (key, _call, next) => (typeof key === 'string' ? (Object.hasOwn(obj, key) ? obj[key] : fallback(key)) : next()),
  };
  return Object.defineProperty(obj, PY_OBJECT, { value: hooks, enumerable: false });
}

/**
 * The object templates see as `salt`: both `salt['mod.fun']` and `salt.mod.fun` work.
 * Helpers from `extra` replace or add to the built-in ones, function by function. Every other
 * function is a host call: answered through `host` (HostCallRecorder), or, with no host to ask,
 * an error at the line that calls it. Nothing is ever made up for it.
 */
export function saltObject(builtin: HelperTable, extra?: HelperTable, host?: HostCallRecorder): Record<string, unknown> {
  const table: HelperTable = {};
  for (const src of [builtin, extra ?? {}]) {
    for (const mod of Object.keys(src)) {
      table[mod] = { ...(table[mod] ?? {}), ...src[mod] };
    }
  }
  const hostFn = (fun: string) => (host ? host.fn(fun) : noHost(fun));
  const moduleOf = (mod: string, funs: Record<string, unknown>) => withFallback(funs, (fun) => hostFn(`${mod}.${fun}`));
  const out: Record<string, unknown> = {};
  for (const mod of Object.keys(table)) {
    out[mod] = moduleOf(mod, table[mod]);
    for (const fun of Object.keys(table[mod])) out[`${mod}.${fun}`] = table[mod][fun];
  }
  return withFallback(out, (key) => (key.includes('.') ? hostFn(key) : moduleOf(key, {})));
}

/** Where no host answers: calling the function fails, naming it (the template adds the line). */
function noHost(fun: string): (...raw: unknown[]) => never {
  return (...raw: unknown[]) => {
    const { args, kwargs } = splitArgs(raw);
    const call = { fun, args, kwargs };
    throw new HostCallError(call, 'BRINE_ERR_JINJA_NO_HOST', `${describeHostCall(call)} needs the host, and there is no host to ask here`);
  };
}
