import { isDict } from '@brine/core';
import { execErrors } from '../errors.js';
import type { ExecContext, ExecFunction } from '../function.js';
import { APT_ENV, APT_OPTS, candidates, compareVersions, diffVersions, dpkgVersions, installedPackages } from '../host/apt.js';
import { SourcesList, listRepos } from '../host/apt-sources.js';

const osarch = (ctx: ExecContext) => (typeof ctx.grains.osarch === 'string' ? ctx.grains.osarch : undefined);

/** One name gives its value, several a dict by name: Salt's convention for pkg.version and latest_version. */
function oneOrMany(names: string[], value: (n: string) => unknown): unknown {
  if (names.length === 1) return value(names[0]!);
  return Object.fromEntries(names.map((n) => [n, value(n)]));
}

function asBool(v: unknown, dflt: boolean): boolean {
  if (v === undefined || v === null) return dflt;
  if (typeof v === 'string') return /^(true|yes|1|on)$/i.test(v);
  return Boolean(v);
}

async function aptUpdate(fun: string, ctx: ExecContext): Promise<void> {
  const r = await ctx.cmd.run(['apt-get', '-q', 'update'], { env: APT_ENV, signal: ctx.signal });
  if (r.retcode !== 0) throw execErrors.make('BRINE_ERR_EXEC_FAILED', { fun, detail: `Error refreshing package database: ${r.stderr || r.stdout}` });
}

/** `name` (comma-separated names allowed) or `pkgs` (names or one-key {name: version} dicts) as apt targets. */
function targets(a: Record<string, unknown>): string[] {
  const kw = (a.kwargs as Record<string, unknown>) ?? {};
  const pkgs = a.pkgs ?? kw.pkgs;
  if (Array.isArray(pkgs) && pkgs.length) {
    return pkgs.flatMap((p) => (isDict(p) ? Object.entries(p).map(([n, v]) => (v === null || v === undefined ? n : `${n}=${String(v)}`)) : [String(p)]));
  }
  if (a.name === undefined || a.name === null) return [];
  const version = a.version ?? kw.version;
  const names = String(a.name)
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  return names.map((n) => (version === undefined || version === null ? n : `${n}=${String(version)}`));
}

async function aptAction(fun: string, verb: string[], want: string[], ctx: ExecContext, extra: string[] = []): Promise<unknown> {
  if (want.length === 0) return {};
  const before = await dpkgVersions(ctx.cmd);
  const r = await ctx.cmd.run(['apt-get', ...APT_OPTS, ...extra, ...verb, ...want], { env: APT_ENV, signal: ctx.signal });
  const changes = diffVersions(before, await dpkgVersions(ctx.cmd));
  if (r.retcode !== 0) {
    throw execErrors.make('BRINE_ERR_EXEC_FAILED', {
      fun,
      detail: `Problem encountered ${verb[0] === 'install' ? 'installing' : 'removing'} package(s): ${(r.stderr || r.stdout).trim()} (changes: ${JSON.stringify(changes)})`,
    });
  }
  return changes;
}

/** Salt's aptpkg module (Debian and Ubuntu): dpkg-query to look, apt-get to act. */
export const pkgFunctions: ExecFunction[] = [
  {
    name: 'pkg.list_repos',
    doc: "The apt sources (sources.list and sources.list.d/*.list) by URI, each entry as Salt's aptpkg lists it.",
    params: [],
    extraKwargs: true,
    run: async () => ({ return: listRepos(await new SourcesList('/').load()) }),
  },
  {
    name: 'pkg.version',
    doc: "The installed version of the package, '' when not installed; several names give a dict.",
    params: [],
    varArgs: true,
    extraKwargs: true,
    run: async (a, ctx) => {
      const names = (a.args as unknown[]).map(String);
      if (names.length === 0) return { return: '' };
      const have = await installedPackages(ctx.cmd, osarch(ctx));
      const asList = asBool((a.kwargs as Record<string, unknown>).versions_as_list, false);
      return { return: oneOrMany(names, (n) => (have.has(n) ? (asList ? have.get(n) : have.get(n)!.join(',')) : '')) };
    },
  },
  {
    name: 'pkg.list_pkgs',
    doc: 'Every installed package and its version (several versions joined by commas, or a list with versions_as_list=True).',
    params: [
      { name: 'versions_as_list', type: 'boolean', default: false },
      { name: 'removed', type: 'boolean', default: false },
      { name: 'purge_desired', type: 'boolean', default: false },
    ],
    extraKwargs: true,
    run: async (a, ctx) => {
      const have = await installedPackages(ctx.cmd, osarch(ctx));
      const names = [...have.keys()].sort();
      return { return: Object.fromEntries(names.map((n) => [n, a.versions_as_list ? have.get(n) : have.get(n)!.join(',')])) };
    },
  },
  {
    name: 'pkg.latest_version',
    doc: "The version apt would upgrade or install to, '' when an installed one is as new (refresh=True runs apt-get update first); several names give a dict.",
    params: [],
    varArgs: true,
    extraKwargs: true,
    run: async (a, ctx) => {
      const kw = a.kwargs as Record<string, unknown>;
      let names = (a.args as unknown[]).map(String);
      if (names.length === 0) return { return: '' };
      const installed = await installedPackages(ctx.cmd, osarch(ctx));
      if (asBool(kw.refresh, true)) await aptUpdate('pkg.latest_version', ctx);
      const cands = await candidates(ctx.cmd, names);
      const ret: Record<string, string> = Object.fromEntries(names.map((n) => [n, '']));
      // As Salt's aptpkg: a name apt knows nothing of is dropped (its foreign-arch packages, if
      // any, take its place), so one known name among several still answers with a string.
      const known: string[] = [];
      for (const n of names) {
        if (!cands.has(n)) {
          for (const k of cands.keys()) if (k.startsWith(`${n}:`) && !known.includes(k)) known.push(k);
          continue;
        }
        known.push(n);
      }
      names = known;
      for (const n of names) {
        const c = cands.get(n) ?? '';
        const have = installed.get(n) ?? [];
        if (have.length === 0) ret[n] = c;
        else if (c !== '') {
          let newer = true;
          for (const v of have) if ((await compareVersions(ctx.cmd, v, c)) !== -1) newer = false;
          if (newer) ret[n] = c;
        }
      }
      return { return: names.length === 1 ? ret[names[0]!] : ret };
    },
  },
  {
    name: 'pkg.available_version',
    doc: 'The same as pkg.latest_version.',
    params: [],
    varArgs: true,
    extraKwargs: true,
    run: (a, ctx) => ctx.registry.get('pkg.latest_version').run(a, ctx),
  },
  {
    name: 'pkg.version_cmp',
    doc: 'Compares two package versions as dpkg does: -1, 0 or 1 (None when they cannot be compared).',
    params: [
      { name: 'pkg1', type: ['string', 'number'], required: true },
      { name: 'pkg2', type: ['string', 'number'], required: true },
      { name: 'ignore_epoch', type: 'boolean', default: false },
    ],
    extraKwargs: true,
    run: async (a, ctx) => {
      const strip = (v: unknown) => (a.ignore_epoch ? String(v).replace(/^\d+:/, '') : String(v));
      return { return: await compareVersions(ctx.cmd, strip(a.pkg1), strip(a.pkg2)) };
    },
  },
  {
    name: 'pkg.install',
    doc: 'Installs packages with apt-get (name=, pkgs=[...], version=, refresh=, fromrepo=); returns {pkg: {old, new}} for what changed.',
    params: [
      { name: 'name', type: 'string' },
      { name: 'refresh', type: 'any', default: false },
      { name: 'fromrepo', type: 'string' },
      { name: 'skip_verify', type: 'any' },
      { name: 'pkgs', type: 'list' },
      { name: 'version', type: ['string', 'number'] },
      { name: 'install_recommends', type: 'any' },
    ],
    extraKwargs: true,
    run: async (a, ctx) => {
      if (asBool(a.refresh, false)) await aptUpdate('pkg.install', ctx);
      const extra: string[] = [];
      if (a.install_recommends !== undefined && !asBool(a.install_recommends, true)) extra.push('--no-install-recommends');
      if (typeof a.fromrepo === 'string') extra.push('-t', a.fromrepo);
      return { return: await aptAction('pkg.install', ['install'], targets(a), ctx, extra) };
    },
  },
  {
    name: 'pkg.remove',
    doc: 'Removes packages with apt-get (name=, pkgs=[...]); returns {pkg: {old, new}} for what changed.',
    params: [
      { name: 'name', type: 'string' },
      { name: 'pkgs', type: 'list' },
    ],
    extraKwargs: true,
    run: async (a, ctx) => ({ return: await aptAction('pkg.remove', ['remove'], targets({ ...a, version: undefined }), ctx) }),
  },
  {
    name: 'pkg.purge',
    doc: 'Removes packages and their configuration files with apt-get purge; returns {pkg: {old, new}}.',
    params: [
      { name: 'name', type: 'string' },
      { name: 'pkgs', type: 'list' },
    ],
    extraKwargs: true,
    run: async (a, ctx) => ({ return: await aptAction('pkg.purge', ['purge'], targets({ ...a, version: undefined }), ctx) }),
  },
];
