import type { ArgSpec, StateContext, StateModule, StateReturn } from '@brine/core';
import { isDict } from '@brine/core';
import { APT_ENV, APT_OPTS, candidate, candidates, diffVersions, dpkgKnown, dpkgVersions } from '@brine/exec';
import { asBool } from '../util/args.js';
import { needPrograms } from '../util/which.js';

const commonArgs: Record<string, ArgSpec> = {
  pkgs: { type: 'list' },
  version: { type: ['string', 'number'] },
  refresh: { type: 'boolean' },
  fromrepo: { type: 'string' },
  skip_verify: { type: 'boolean' },
  hold: { type: 'boolean' },
  install_recommends: { type: 'boolean' },
  cache_valid_time: { type: 'number' },
};

interface Target {
  name: string;
  version?: string;
}

/** `name` or `pkgs` (names, or one-key {name: version} dicts) as install targets. */
function targets(args: Record<string, unknown>): Target[] {
  if (Array.isArray(args.pkgs) && args.pkgs.length) {
    const out: Target[] = [];
    for (const p of args.pkgs) {
      if (isDict(p)) for (const [n, v] of Object.entries(p)) out.push({ name: n, version: v === null || v === undefined ? undefined : String(v) });
      else out.push({ name: String(p) });
    }
    return out;
  }
  const version = args.version === undefined || args.version === null ? undefined : String(args.version);
  return String(args.name)
    .split(',')
    .map((n) => n.trim())
    .filter(Boolean)
    .map((name) => ({ name, version }));
}

/**
 * What Salt 3007's test mode predicts a target installs (states/pkg.py _get_installable_versions):
 * apt's candidate for a package without a version; for a pinned one, the first version
 * `apt-cache show name=version` knows; 'installed' where apt knows none. The old version is
 * always '' there. Unlike Salt, the package lists are not refreshed first: test mode changes
 * nothing on the host.
 */
async function predictedVersions(ctx: StateContext, pending: string[]): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  const latest = pending.filter((s) => !s.includes('='));
  const found = latest.length ? await candidates(ctx.cmd, latest) : new Map<string, string>();
  for (const n of latest) out.set(n, found.get(n) || 'installed');
  for (const spec of pending.filter((s) => s.includes('='))) {
    const [n, v] = [spec.slice(0, spec.indexOf('=')), spec.slice(spec.indexOf('=') + 1)];
    const r = await ctx.cmd.run(['apt-cache', 'show', /^[<>=]/.test(v) ? `${n}${v}` : spec]);
    const m = r.retcode === 0 ? /^Version:\s*(\S+)/m.exec(r.stdout) : null;
    out.set(n, m ? m[1]! : 'installed');
  }
  return out;
}

/**
 * Salt's aptpkg.install raises when apt exits non-zero with something on stderr; pkg.installed
 * then comments the error list as Salt's nested outputter lays it out.
 */
function aptProblem(stderr: string): string {
  const [first, ...rest] = stderr.trimEnd().split('\n');
  return ['Problem encountered installing package(s). Additional info follows:\n\nerrors:', `    - ${first}`, ...rest.map((l) => `      ${l}`)].join('\n');
}

/** Salt's _get_desired_pkg: the name, with `=version` where one is wanted. */
const desiredPkg = (t: Target) => (t.version === undefined ? t.name : `${t.name}${/^[<>=]/.test(t.version) ? '' : '='}${t.version}`);

/**
 * pkg.installed's comment after an install, as Salt words it: the installed targets listed while
 * that list is under 20 characters (else counted), then the targets that were already there.
 */
function installedSummary(want: Target[], pending: string[]): string {
  const names = new Set(pending.map((s) => s.split('=')[0]));
  const modified = want.filter((t) => names.has(t.name));
  const already = want.filter((t) => !names.has(t.name));
  const count = (n: number) => `${n} targeted package${n > 1 ? 's' : ''} ${n > 1 ? 'were' : 'was'}`;
  const listed = modified.map(desiredPkg).join(', ');
  const lines = [listed.length < 20 ? `The following packages were installed/updated: ${listed}` : `${count(modified.length)} installed/updated.`];
  if (already.length) {
    lines.push(
      already.length <= 20
        ? `The following packages were already installed: ${already.map(desiredPkg).join(', ')}`
        : `${count(already.length)} already installed`,
    );
  }
  return lines.join('\n');
}

/** Salt reads `version: latest` as apt's candidate (none known: no version at all). */
async function resolveLatest(ctx: StateContext, want: Target[]): Promise<Target[]> {
  const latest = want.filter((t) => t.version === 'latest').map((t) => t.name);
  if (!latest.length) return want;
  const found = await candidates(ctx.cmd, latest);
  return want.map((t) => (t.version === 'latest' ? { name: t.name, version: found.get(t.name) || undefined } : t));
}

function stateOf(names: string[], versions: Map<string, string>): Record<string, string | null> {
  const out: Record<string, string | null> = {};
  for (const n of names) out[n] = versions.get(n) ?? null;
  return out;
}

async function refresh(args: Record<string, unknown>, ctx: StateContext): Promise<string | undefined> {
  if (!asBool(args.refresh)) return undefined;
  const r = await ctx.cmd.run(['apt-get', '-q', 'update'], { env: APT_ENV });
  return r.retcode === 0 ? undefined : `Failed to refresh the package database: ${r.stderr || r.stdout}`;
}

async function install(
  args: Record<string, unknown>,
  ctx: StateContext,
  want: Target[],
  pending: string[],
  verbs: { done: string; would: string; fail: string; ok: string; aptProblem?: boolean; summary?: (pending: string[]) => string },
  /** pkg.latest's prediction names the installed version as old (pkg.installed's says ''). */
  oldInTest = false,
): Promise<StateReturn> {
  const name = String(args.name);
  const names = want.map((t) => t.name);
  const before = await dpkgVersions(ctx.cmd);
  const ret: StateReturn = { name, changes: {}, result: true, comment: '', old_state: stateOf(names, before) };
  if (!pending.length) {
    ret.comment = verbs.ok;
    ret.new_state = ret.old_state;
    return ret;
  }
  if (ctx.test) {
    ret.result = null;
    ret.comment = `The following packages would be ${verbs.would}: ${pending.map((s) => s.split('=')[0]).join(', ')}`;
    const versions = await predictedVersions(ctx, pending);
    for (const spec of pending) {
      const n = spec.split('=')[0]!;
      ret.changes[n] = { new: versions.get(n) ?? 'installed', old: oldInTest ? (before.get(n) ?? '') : '' };
    }
    return ret;
  }
  const err = await refresh(args, ctx);
  if (err) return { ...ret, result: false, comment: err };
  const argv = ['apt-get', ...APT_OPTS];
  if (args.install_recommends === false) argv.push('--no-install-recommends');
  if (typeof args.fromrepo === 'string') argv.push('-t', args.fromrepo);
  const r = await ctx.cmd.run([...argv, 'install', ...pending], { env: APT_ENV });
  const after = await dpkgVersions(ctx.cmd);
  ret.changes = diffVersions(before, after);
  ret.new_state = stateOf(names, after);
  const failed = want.filter((t) => !after.has(t.name) || (t.version !== undefined && after.get(t.name) !== t.version)).map((t) => t.name);
  if (r.retcode !== 0 && verbs.aptProblem && r.stderr.trim()) return { ...ret, result: false, comment: aptProblem(r.stderr) };
  if (r.retcode !== 0 || failed.length) {
    ret.result = false;
    ret.comment = `The following packages failed to ${verbs.fail}: ${(failed.length ? failed : pending).join(', ')}\n${r.stderr || r.stdout}`.trim();
    return ret;
  }
  ret.comment = verbs.summary ? verbs.summary(pending) : `The following packages were ${verbs.done}: ${pending.map((s) => s.split('=')[0]).join(', ')}`;
  return ret;
}

async function installed(args: Record<string, unknown>, ctx: StateContext): Promise<StateReturn> {
  const want = await resolveLatest(ctx, targets(args));
  const have = await dpkgVersions(
    ctx.cmd,
    want.map((t) => t.name),
  );
  const pending = want
    .filter((t) => !have.has(t.name) || (t.version !== undefined && have.get(t.name) !== t.version))
    .map((t) => (t.version !== undefined ? `${t.name}=${t.version}` : t.name));
  return install(args, ctx, want, pending, {
    done: 'installed/updated',
    would: 'installed/updated',
    fail: 'install/update',
    // Salt adds this once any target names a version (`latest` resolved to apt's candidate)
    ok: `All specified packages are already installed${want.some((t) => t.version !== undefined) ? ' and are at the desired version' : ''}`,
    aptProblem: true,
    summary: (p) => installedSummary(want, p),
  });
}

async function latest(args: Record<string, unknown>, ctx: StateContext): Promise<StateReturn> {
  const want = targets(args).map((t) => ({ name: t.name }));
  const err = ctx.test ? undefined : await refresh(args, ctx);
  if (err) return { name: String(args.name), changes: {}, result: false, comment: err };
  const have = await dpkgVersions(
    ctx.cmd,
    want.map((t) => t.name),
  );
  const pending: string[] = [];
  const missing: string[] = [];
  for (const t of want) {
    const c = await candidate(ctx.cmd, t.name);
    if (!c) missing.push(t.name);
    else if (have.get(t.name) !== c) pending.push(t.name);
  }
  if (missing.length) {
    return { name: String(args.name), changes: {}, result: false, comment: `No information found for '${missing.join("', '")}'.` };
  }
  const ret = await install(
    { ...args, refresh: false },
    ctx,
    want,
    pending,
    {
      done: 'installed/upgraded',
      would: 'installed/upgraded',
      fail: 'install/upgrade',
      ok: want.length === 1 ? `Package ${want[0].name} is already up-to-date` : 'All packages are up-to-date',
    },
    true,
  );
  return ret;
}

function removeFn(purge: boolean) {
  return async (args: Record<string, unknown>, ctx: StateContext): Promise<StateReturn> => {
    const want = targets(args).map((t) => t.name);
    const name = String(args.name);
    const before = await dpkgVersions(ctx.cmd);
    const known = purge ? await dpkgKnown(ctx.cmd, want) : new Map<string, string>();
    const pending = want.filter((n) => before.has(n) || known.has(n));
    const ret: StateReturn = { name, changes: {}, result: true, comment: '', old_state: stateOf(want, before) };
    if (!pending.length) {
      ret.comment = 'All specified packages are already absent';
      ret.new_state = ret.old_state;
      return ret;
    }
    const verb = purge ? 'purged' : 'removed';
    if (ctx.test) {
      ret.result = null;
      ret.comment = `The following packages will be ${verb}: ${pending.join(', ')}.`;
      for (const n of pending) ret.changes[n] = { old: before.get(n) ?? '', new: '' };
      return ret;
    }
    const r = await ctx.cmd.run(['apt-get', ...APT_OPTS, purge ? 'purge' : 'remove', ...pending], { env: APT_ENV });
    const after = await dpkgVersions(ctx.cmd);
    ret.changes = diffVersions(before, after);
    ret.new_state = stateOf(want, after);
    const left = pending.filter((n) => after.has(n));
    if (r.retcode !== 0 || left.length) {
      ret.result = false;
      ret.comment = `The following packages failed to ${purge ? 'purge' : 'remove'}: ${(left.length ? left : pending).join(', ')}\n${r.stderr}`.trim();
      return ret;
    }
    ret.comment = `All targeted packages were ${verb}.`;
    return ret;
  };
}

export { dpkgVersions };

/** Salt's `pkg` states on Debian and Ubuntu (dpkg-query to look, apt-get to act). */
export function pkgModule(): StateModule {
  return {
    name: 'pkg',
    available: () => {
      const a = needPrograms('dpkg-query', 'apt-get', 'apt-cache');
      return a.available ? a : { available: false, reason: `only Debian-family hosts are supported (${a.reason})` };
    },
    functions: {
      installed: { args: commonArgs, run: installed },
      latest: { args: commonArgs, run: latest },
      removed: { args: { pkgs: { type: 'list' }, version: { type: ['string', 'number'] } }, run: removeFn(false) },
      purged: { args: { pkgs: { type: 'list' }, version: { type: ['string', 'number'] } }, run: removeFn(true) },
    },
  };
}
