import { accessSync, constants, existsSync, statSync } from 'node:fs';
import { basename, join, normalize } from 'node:path';
import type { ArgSpec, Availability, CommandOptions, StateContext, StateModule, StateReturn } from '@brine/core';
import { asBool } from '../util/args.js';
import { which } from '../util/which.js';

/** Salt's pip.installed and pip.removed, through `python -m pip` of a virtualenv or the system. */

class PipError extends Error {}

/** Salt's choice of pip: the bin_env's python -m pip, a given pip/python binary, or the system's. */
function pipCommand(binEnv: string | undefined): string[] {
  if (!binEnv) {
    const py = which('python3') ?? which('python');
    if (!py) throw new PipError('Could not find a `pip` binary');
    return [py, '-m', 'pip'];
  }
  if (existsSync(binEnv) && statSync(binEnv).isDirectory()) {
    for (const p of [join(binEnv, 'python'), join(binEnv, 'bin', 'python'), join(binEnv, 'Scripts', 'python')]) {
      if (existsSync(p) && statSync(p).isFile()) {
        try {
          accessSync(p, constants.X_OK);
          return [normalize(p), '-m', 'pip'];
        } catch {}
      }
    }
    throw new PipError(`Could not find a pip binary in virtualenv ${binEnv}`);
  }
  try {
    accessSync(binEnv, constants.X_OK);
  } catch {
    throw new PipError(`Access denied to ${binEnv}, could not find a pip binary`);
  }
  if (statSync(binEnv).isFile()) return basename(binEnv).includes('python') ? [normalize(binEnv), '-m', 'pip'] : [normalize(binEnv)];
  throw new PipError(`Could not find a pip binary within ${binEnv}`);
}

interface Pip {
  argv: string[];
  opts: CommandOptions;
}

function pipFor(a: Record<string, unknown>): Pip {
  const binEnv = str(a.bin_env) ?? str(a.pip_bin);
  const argv = pipCommand(binEnv);
  const isVenv = binEnv !== undefined && existsSync(binEnv) && statSync(binEnv).isDirectory();
  // no ANSI colours in the output that ends up in comments, whatever the caller's terminal says
  const env: Record<string, string> = { PIP_NO_COLOR: '1', ...(isVenv ? { VIRTUAL_ENV: binEnv } : {}) };
  if (a.env_vars && typeof a.env_vars === 'object') for (const [k, v] of Object.entries(a.env_vars)) env[k] = String(v);
  const cwd = str(a.cwd) ?? (isVenv ? binEnv : undefined);
  return { argv, opts: { env, ...(cwd ? { cwd } : {}), ...(str(a.user) ? { runas: str(a.user) } : {}) } };
}

const str = (v: unknown): string | undefined => (v === undefined || v === null || v === '' ? undefined : String(v));

async function pipList(ctx: StateContext, pip: Pip, checkVersion = false): Promise<Map<string, [string, string]>> {
  if (checkVersion) {
    const v = await ctx.cmd.run([...pip.argv, '--version'], pip.opts);
    if (v.retcode !== 0) throw new PipError('Could not find a `pip` binary');
  }
  const r = await ctx.cmd.run([...pip.argv, 'list', '--format=json'], pip.opts);
  if (r.retcode !== 0) throw new PipError(r.stderr.trim());
  const out = new Map<string, [string, string]>();
  for (const p of JSON.parse(r.stdout) as Array<{ name: string; version: string }>) out.set(p.name.toLowerCase(), [p.name, p.version]);
  return out;
}

interface Req {
  name: string;
  specs: Array<[string, string]>;
}

/** The project name and version specifiers of a requirement line; undefined for URLs and paths. */
function parseReq(pkg: string): Req | undefined | string {
  const line = pkg.split(';')[0]!.trim();
  if (/^[a-z+]+:\/\//i.test(line) || line.startsWith('/') || line.startsWith('.') || /^(git|hg|svn|bzr)\+/.test(line)) return undefined;
  const m = /^([A-Za-z0-9](?:[A-Za-z0-9._-]*[A-Za-z0-9])?)\s*(\[[^\]]*\])?\s*(\(?)([^)]*)\)?\s*$/.exec(line);
  if (!m) return `pip raised an exception while parsing '${pkg}': Invalid requirement: '${pkg}'`;
  const specs: Array<[string, string]> = [];
  for (const part of (m[4] ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean)) {
    const s = /^(===|==|!=|~=|<=|>=|<|>)\s*([A-Za-z0-9.*+!_-]+)$/.exec(part);
    if (!s) {
      if (pkg.includes('=') && !pkg.includes('==')) return `Invalid version specification in package ${pkg}. '=' is not supported, use '==' instead.`;
      return `pip raised an exception while parsing '${pkg}': Expected end or semicolon (after name and no valid version specifier)`;
    }
    specs.push([s[1]!, s[2]!]);
  }
  return { name: m[1]!.replace(/[^A-Za-z0-9.]+/g, '-'), specs };
}

/** PEP 440 ordering for the common forms (release segments, a/b/rc, post, dev). */
function cmpVersion(a: string, b: string): number {
  const parse = (v: string) => {
    const m =
      /^v?(?:(\d+)!)?([\d.]+)(?:[-_.]?(a|alpha|b|beta|rc|c|pre|preview)[-_.]?(\d*))?(?:[-_.]?(post|rev|r)[-_.]?(\d*))?(?:[-_.]?dev[-_.]?(\d*))?(?:\+.*)?$/i.exec(
        v.trim(),
      );
    if (!m) return undefined;
    const rel = m[2]!.split('.').filter(Boolean).map(Number);
    const pre = m[3] ? [{ a: 0, alpha: 0, b: 1, beta: 1, rc: 2, c: 2, pre: 2, preview: 2 }[m[3].toLowerCase() as 'a']!, Number(m[4] || 0)] : [3, 0];
    const dev = m[7] !== undefined ? Number(m[7] || 0) : Infinity;
    return { epoch: Number(m[1] ?? 0), rel, pre: m[3] || m[7] === undefined || m[5] ? pre : [-1, 0], post: m[5] ? Number(m[6] || 0) : -1, dev };
  };
  const x = parse(a);
  const y = parse(b);
  if (!x || !y) return a === b ? 0 : a < b ? -1 : 1;
  if (x.epoch !== y.epoch) return x.epoch - y.epoch;
  for (let i = 0; i < Math.max(x.rel.length, y.rel.length); i++) if ((x.rel[i] ?? 0) !== (y.rel[i] ?? 0)) return (x.rel[i] ?? 0) - (y.rel[i] ?? 0);
  for (const [p, q] of [
    [x.pre[0]!, y.pre[0]!],
    [x.pre[1]!, y.pre[1]!],
    [x.post, y.post],
  ] as const)
    if (p !== q) return p - q;
  return x.dev === y.dev ? 0 : x.dev < y.dev ? -1 : 1;
}

function fulfills(version: string, specs: Array<[string, string]>): boolean {
  return specs.every(([op, want]) => {
    if (want.endsWith('.*')) {
      const prefix = want.slice(0, -2);
      const hit = version === prefix || version.startsWith(`${prefix}.`);
      return op === '!=' ? !hit : hit;
    }
    const c = cmpVersion(version, want);
    switch (op) {
      case '==':
      case '===':
        return c === 0;
      case '!=':
        return c !== 0;
      case '<=':
        return c <= 0;
      case '>=':
        return c >= 0;
      case '<':
        return c < 0;
      case '>':
        return c > 0;
      case '~=': {
        const parts = want.split('.');
        const upper = [...parts.slice(0, -2), String(Number(parts[parts.length - 2] ?? 0) + 1)].join('.');
        return c >= 0 && cmpVersion(version, upper) < 0;
      }
      default:
        return false;
    }
  });
}

const list = (v: unknown): string[] => (v === undefined || v === null ? [] : Array.isArray(v) ? v.map(String) : String(v).split(','));

/** Salt's pip.install command line for the options states use. */
function installArgs(a: Record<string, unknown>, pkgs: string[]): string[] {
  const out = ['install'];
  if (str(a.requirements)) out.push(`--requirement=${String(a.requirements)}`);
  if (str(a.log)) out.push(`--log=${String(a.log)}`);
  if (str(a.proxy)) out.push(`--proxy=${String(a.proxy)}`);
  if (str(a.timeout)) out.push(`--timeout=${String(a.timeout)}`);
  if (str(a.editable)) out.push(...list(a.editable).flatMap((e) => ['--editable', e]));
  for (const l of list(a.find_links)) out.push(`--find-links=${l}`);
  if (asBool(a.no_index)) out.push('--no-index');
  if (str(a.index_url)) out.push('--index-url', String(a.index_url));
  for (const u of list(a.extra_index_url)) out.push('--extra-index-url', u);
  if (str(a.target)) out.push(`--target=${String(a.target)}`);
  if (str(a.download)) out.push(`--download=${String(a.download)}`);
  if (str(a.source)) out.push(`--source=${String(a.source)}`);
  if (asBool(a.upgrade)) out.push('--upgrade');
  if (asBool(a.force_reinstall)) out.push('--force-reinstall');
  if (asBool(a.ignore_installed)) out.push('--ignore-installed');
  if (str(a.exists_action)) out.push('--exists-action', String(a.exists_action));
  if (asBool(a.no_deps)) out.push('--no-deps');
  for (const o of list(a.install_options)) out.push(`--install-option=${o}`);
  for (const o of list(a.global_options)) out.push(`--global-option=${o}`);
  if (asBool(a.pre_releases)) out.push('--pre');
  if (str(a.cert)) out.push(`--cert=${String(a.cert)}`);
  for (const h of list(a.trusted_host)) out.push('--trusted-host', h);
  if (asBool(a.no_cache_dir)) out.push('--no-cache-dir');
  if (str(a.cache_dir)) out.push(`--cache-dir=${String(a.cache_dir)}`);
  if (str(a.no_binary)) out.push(`--no-binary=${String(a.no_binary)}`);
  out.push('--disable-pip-version-check');
  if (Array.isArray(a.extra_args)) {
    for (const e of a.extra_args) {
      if (e && typeof e === 'object') for (const [k, v] of Object.entries(e)) out.push(k, ...(v === null || v === undefined ? [] : [String(v)]));
      else out.push(String(e));
    }
  }
  return [...out, ...pkgs];
}

const NO_CHANGE = [
  'Requirement already satisfied',
  'Requirement already up-to-date',
  'Requirement not upgraded',
  'Collecting',
  'Cloning',
  'Cleaning up...',
  'Looking in indexes',
];

async function installed(a: Record<string, unknown>, ctx: StateContext): Promise<StateReturn> {
  const name = String(a.name);
  if (a.pkgs !== undefined && a.pkgs !== null && !Array.isArray(a.pkgs))
    return { name, result: false, changes: {}, comment: 'pkgs argument must be formatted as a list' };
  const pkgs = (Array.isArray(a.pkgs) && a.pkgs.length ? a.pkgs : [name]).map((p) =>
    p && typeof p === 'object' ? Object.entries(p)[0]!.join(' ') : String(p),
  );
  const ret: StateReturn = { name: pkgs.join(';'), result: null, changes: {}, comment: '' };
  let pip: Pip;
  try {
    pip = pipFor(a);
    const v = await ctx.cmd.run([...pip.argv, '--version'], pip.opts);
    if (v.retcode !== 0) throw new PipError('Could not find a `pip` binary');
  } catch (e) {
    if (!(e instanceof PipError)) throw e;
    return { ...ret, result: false, comment: `Error installing '${name}': ${e.message}` };
  }
  const requirements = str(a.requirements);
  const editable = str(a.editable);
  const details: Array<{ req?: Req; pkg: string }> = [];
  if (!requirements && !editable) {
    const errors: string[] = [];
    for (const pkg of pkgs) {
      const r = parseReq(pkg);
      if (typeof r === 'string') errors.push(r);
      else details.push({ req: r, pkg });
    }
    if (errors.length) return { ...ret, result: false, comment: errors.join('\n') };
  }
  const user = str(a.user);
  if (user) {
    const { getUser } = await import('../util/accounts.js');
    if (!(await getUser(user, ctx.cmd))) return { ...ret, result: false, comment: `User ${user} does not exist` };
  }
  const targets: Array<{ req?: Req; pkg: string; arg: string }> = [];
  const already: string[] = [];
  if (requirements || editable) {
    if (ctx.test) {
      const c: string[] = [];
      if (requirements) c.push(`Requirements file '${requirements}' will be processed.`);
      if (editable) c.push(`Package will be installed in editable mode (i.e. setuptools "develop mode") from ${editable}.`);
      return { ...ret, comment: c.join(' ') };
    }
  } else {
    const pending = await pendingTargets(a, ctx, pip, ret, details);
    if ('done' in pending) return pending.done;
    targets.push(...pending.targets);
    already.push(...pending.already);
  }
  const r = await ctx.cmd.run(
    [
      ...pip.argv,
      ...installArgs(
        a,
        targets.map((t) => t.arg),
      ),
    ],
    pip.opts,
  );
  const aicomms = already.join('\n');
  const withAlready = (s: string) => (aicomms ? `${aicomms}\n${s}` : s);
  if (r.retcode === 0) {
    ret.result = true;
    if (requirements || editable) {
      const c: string[] = [];
      if (requirements) {
        if (r.stdout.split('\n').some((l) => !NO_CHANGE.some((x) => l.trim().startsWith(x)))) ret.changes.requirements = true;
        c.push(ret.changes.requirements ? `Successfully processed requirements file ${requirements}.` : 'Requirements were already installed.');
      }
      if (editable) {
        c.push(`Package successfully installed from VCS checkout ${editable}.`);
        ret.changes.editable = true;
      }
      ret.comment = c.join(' ');
      return ret;
    }
    return reportInstalled(ctx, pip, ret, r.stdout, targets, withAlready);
  }
  ret.result = false;
  const error = `Error: ${r.stdout.trim()} ${r.stderr.trim()}`;
  if (requirements || editable) {
    const c: string[] = [];
    if (requirements) c.push(`Unable to process requirements file "${requirements}"`);
    if (editable) c.push(`Unable to install from VCS checkout ${editable}.`);
    c.push(error);
    ret.comment = c.join(' ');
  } else {
    ret.comment = withAlready(`Failed to install packages: ${targets.map((t) => t.pkg).join(', ')}. ${error}`);
  }
  return ret;
}

type Target = { req?: Req; pkg: string; arg: string };

/** The packages pip must install (the others already are), or the result (`done`) when none must or in test mode. */
async function pendingTargets(
  a: Record<string, unknown>,
  ctx: StateContext,
  pip: Pip,
  ret: StateReturn,
  details: Array<{ req?: Req; pkg: string }>,
): Promise<{ targets: Target[]; already: string[] } | { done: StateReturn }> {
  const targets: Target[] = [];
  const already: string[] = [];
  const have = await pipList(ctx, pip).catch(() => new Map<string, [string, string]>());
  ret.old_state = Object.fromEntries([...have.values()]);
  for (const d of details) {
    const cur = d.req ? have.get(d.req.name.toLowerCase()) : undefined;
    const satisfied =
      d.req && cur && !asBool(a.ignore_installed) && !asBool(a.force_reinstall) && !asBool(a.upgrade) && (!d.req.specs.length || fulfills(cur[1], d.req.specs));
    if (satisfied) {
      already.push(`Python package ${d.pkg} was already installed`);
      continue;
    }
    targets.push({ req: d.req, pkg: d.pkg.replace(/,/g, ';'), arg: d.pkg });
    if (ctx.test) {
      ret.comment =
        details.length > 1
          ? `Python package(s) set to be installed:${details.map((x) => `\n${x.pkg}`).join('')}`
          : `Python package ${d.pkg} is set to be installed`;
      return { done: ret };
    }
  }
  if (!targets.length) {
    const last = `All specified packages are already installed${asBool(a.upgrade) ? ' and up-to-date' : ''}`;
    return { done: { ...ret, result: true, comment: [...already, last].join('\n'), new_state: ret.old_state } };
  }
  return { targets, already };
}

/** What a successful pip install changed, checked against pip's list afterwards. */
async function reportInstalled(
  ctx: StateContext,
  pip: Pip,
  ret: StateReturn,
  stdout: string,
  targets: Target[],
  withAlready: (s: string) => string,
): Promise<StateReturn> {
  const upToDate = new Set(
    stdout
      .split('\n')
      .filter((l) => l.startsWith('Requirement already up-to-date: '))
      .map((l) => l.split(':')[1]!.trim().split(/\s+/)[0]!.toLowerCase()),
  );
  const after = await pipList(ctx, pip);
  const missing: string[] = [];
  for (const t of targets) {
    if (!t.req) {
      ret.changes[`${t.pkg}==???`] = 'Installed';
      continue;
    }
    const hit = [...after.values()].find(([n]) => n.toLowerCase().startsWith(t.req!.name.toLowerCase()) && n.toLowerCase() === t.req!.name.toLowerCase());
    if (!hit) missing.push(`There was no error installing package '${t.pkg}' although it does not show when calling 'pip.freeze'.`);
    else if (!upToDate.has(t.req.name.toLowerCase())) ret.changes[`${t.req.name}==${hit[1]}`] = 'Installed';
  }
  ret.comment = withAlready(missing.length ? missing.join('\n') : 'All packages were successfully installed');
  ret.new_state = Object.fromEntries([...after.values()]);
  return ret;
}

async function removed(a: Record<string, unknown>, ctx: StateContext): Promise<StateReturn> {
  const name = String(a.name);
  const ret: StateReturn = { name, result: null, changes: {}, comment: '' };
  let pip: Pip;
  let have: Map<string, [string, string]>;
  try {
    pip = pipFor(a);
    have = await pipList(ctx, pip, true);
  } catch (e) {
    if (!(e instanceof PipError)) throw e;
    return { ...ret, result: false, comment: `Error uninstalling '${name}': ${e.message}` };
  }
  ret.old_state = Object.fromEntries([...have.values()]);
  if (![...have.values()].some(([n]) => n === name)) return { ...ret, result: true, comment: 'Package is not installed.', new_state: ret.old_state };
  if (ctx.test) return { ...ret, comment: `Package ${name} is set to be removed` };
  const args = [
    'uninstall',
    '-y',
    ...(str(a.requirements) ? [`--requirement=${String(a.requirements)}`] : []),
    ...(str(a.log) ? [`--log=${String(a.log)}`] : []),
    ...(str(a.proxy) ? [`--proxy=${String(a.proxy)}`] : []),
    ...(str(a.timeout) ? [`--timeout=${String(a.timeout)}`] : []),
    name,
  ];
  const r = await ctx.cmd.run([...pip.argv, ...args], pip.opts);
  if (r.retcode !== 0) return { ...ret, result: false, comment: 'Could not remove package.' };
  return {
    ...ret,
    result: true,
    changes: { [name]: 'Removed' },
    comment: 'Package was successfully removed.',
    new_state: Object.fromEntries([...(await pipList(ctx, pip)).values()]),
  };
}

const s: ArgSpec = { type: 'string' };
const b: ArgSpec = { type: 'boolean' };
const sl: ArgSpec = { type: ['string', 'list'] };

export function pipModule(): StateModule {
  return {
    name: 'pip',
    available(): Availability {
      return { available: true };
    },
    functions: {
      installed: {
        args: {
          pkgs: { type: 'any' },
          pip_bin: s,
          requirements: s,
          bin_env: s,
          log: s,
          proxy: s,
          timeout: { type: ['number', 'string'] },
          editable: sl,
          find_links: sl,
          index_url: s,
          extra_index_url: sl,
          no_index: b,
          target: s,
          download: s,
          source: s,
          upgrade: b,
          force_reinstall: b,
          ignore_installed: b,
          exists_action: s,
          no_deps: b,
          install_options: sl,
          global_options: sl,
          user: s,
          cwd: s,
          pre_releases: b,
          cert: s,
          env_vars: { type: 'dict' },
          use_vt: b,
          trusted_host: sl,
          no_cache_dir: b,
          cache_dir: s,
          no_binary: s,
          extra_args: { type: 'list' },
        },
        run: installed,
      },
      removed: {
        args: { requirements: s, bin_env: s, log: s, proxy: s, timeout: { type: ['number', 'string'] }, user: s, cwd: s, use_vt: b },
        run: removed,
      },
    },
  };
}
