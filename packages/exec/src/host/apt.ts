import type { CommandRunner } from '@brine/core';
import { dpkgStatusLines } from './dpkg-status.js';
import { dpkgVersionCompare } from './dpkg-version.js';

/** apt-get without questions or config prompts, as Salt's aptpkg runs it. */
export const APT_ENV = { DEBIAN_FRONTEND: 'noninteractive', APT_LISTCHANGES_FRONTEND: 'none' };
export const APT_OPTS = ['-q', '-y', '-o', 'DPkg::Options::=--force-confold', '-o', 'DPkg::Options::=--force-confdef'];

/** Installed packages and their versions (dpkg status "installed" only); all when no names are given. */
export async function dpkgVersions(cmd: CommandRunner, names: string[] = []): Promise<Map<string, string>> {
  const r = await cmd.run(['dpkg-query', '-W', '-f=${Package}\t${db:Status-Status}\t${Version}\n', ...names]);
  const out = new Map<string, string>();
  for (const line of r.stdout.split('\n')) {
    const [pkg, status, version] = line.split('\t');
    if (pkg && status === 'installed' && version !== undefined) out.set(pkg.split(':')[0]!, version);
  }
  return out;
}

/** Packages that dpkg still knows in any state (installed or config files left), with that state. */
export async function dpkgKnown(cmd: CommandRunner, names: string[]): Promise<Map<string, string>> {
  const r = await cmd.run(['dpkg-query', '-W', '-f=${Package}\t${db:Status-Status}\t${Version}\n', ...names]);
  const out = new Map<string, string>();
  for (const line of r.stdout.split('\n')) {
    const [pkg, status] = line.split('\t');
    if (pkg && status && status !== 'not-installed') out.set(pkg.split(':')[0]!, status);
  }
  return out;
}

/**
 * Salt's aptpkg.list_pkgs: packages wanted installed (or held) and installed, a foreign
 * architecture's named `pkg:arch`; several versions of one name are listed in order.
 */
export async function installedPackages(cmd: CommandRunner, osarch: string | undefined): Promise<Map<string, string[]>> {
  const lines =
    dpkgStatusLines() ?? (await cmd.run(['dpkg-query', '--showformat', '${Status} ${Package} ${Version} ${Architecture}\n', '-W'])).stdout.split('\n');
  const out = new Map<string, string[]>();
  for (const line of lines) {
    const cols = line.split(' ');
    if (cols.length < 6) continue;
    const [want, , status, pkg, version, arch] = cols as [string, string, string, string, string, string];
    if (!((want === 'install' || want === 'hold') && status === 'installed')) continue;
    const name = arch !== 'all' && osarch === 'amd64' && arch !== osarch ? `${pkg}:${arch}` : pkg;
    const list = out.get(name) ?? [];
    if (!list.includes(version)) list.push(version);
    out.set(name, list);
  }
  return out;
}

/** The version apt would install, or undefined when apt knows no candidate. */
export async function candidate(cmd: CommandRunner, name: string): Promise<string | undefined> {
  const r = await cmd.run(['apt-cache', '-q', 'policy', name]);
  const m = /Candidate:\s*(\S+)/.exec(r.stdout);
  return m && m[1] !== '(none)' ? m[1] : undefined;
}

/** Candidates of `apt-cache policy NAMES` by package as apt prints it ('' for none), as Salt parses them. */
export async function candidates(cmd: CommandRunner, names: string[]): Promise<Map<string, string>> {
  const r = await cmd.run(['apt-cache', '-q', 'policy', ...names]);
  const short = names.map((n) => n.split(':')[0]);
  const out = new Map<string, string>();
  let current: string | undefined;
  for (const raw of r.stdout.split('\n')) {
    const line = raw.trim();
    if (line.endsWith(':') && !line.startsWith('Version table')) {
      const pkg = line.slice(0, -1);
      if (names.includes(pkg) || short.includes(pkg.split(':')[0]!)) current = pkg;
    } else if (line.startsWith('Candidate') && current !== undefined) {
      const c = line.split(/\s+/).pop() ?? '';
      out.set(current, c.toLowerCase() === '(none)' ? '' : c);
    }
  }
  return out;
}

/** dpkg's own ordering: -1, 0 or 1, or null when dpkg cannot compare them. */
export async function compareVersions(cmd: CommandRunner, a: string, b: string): Promise<number | null> {
  const known = dpkgVersionCompare(a, b);
  if (known !== undefined) return known;
  for (const [op, val] of [
    ['lt', -1],
    ['eq', 0],
    ['gt', 1],
  ] as const) {
    const r = await cmd.run(['dpkg', '--compare-versions', a, op, b]);
    if (r.retcode === 0) return val;
    if (r.retcode !== 1) return null;
  }
  return null;
}

/** What changed between two listings: {pkg: {old, new}} with '' for absent, as Salt's changes. */
export function diffVersions(before: Map<string, string>, after: Map<string, string>): Record<string, { old: string; new: string }> {
  const changes: Record<string, { old: string; new: string }> = {};
  for (const [p, v] of after) if (before.get(p) !== v) changes[p] = { old: before.get(p) ?? '', new: v };
  for (const [p, v] of before) if (!after.has(p)) changes[p] = { old: v, new: '' };
  return changes;
}
