import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, lstatSync, readFileSync, readdirSync, readlinkSync } from 'node:fs';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { CommandRunner, ExecCaller, FileClient, LowChunk, RunningDict, StateRegistry } from '@brine/core';
import { chunkTag } from '@brine/core';
import { callState, dirFileClient } from '../src/index.js';
import { ctxFor } from './helpers.js';

/**
 * Replays the golden cases of test/golden/<module>/<case> (Salt's own results, made by
 * golden/regenerate.sh) in a fresh temp root: the case's setup.sh makes the fixtures, every
 * chunk runs through Brine in Salt's order, and result, comment and changes must equal Salt's.
 * A case may hold brine-expected.json: the few results where Salt 3007 itself crashes, each with
 * what Brine answers instead and why. In test mode the case's root (its fixtures, and what the
 * case binds over host paths, such as /etc/ufw) must be byte for byte, mode and owner as it was:
 * test=True never changes the host.
 */

const here = dirname(fileURLToPath(import.meta.url));
export const goldenRoot = join(here, 'golden');

export interface GoldenOptions {
  /** The registry to run the case with (module options may point into the case's root). */
  registry: (root: string) => StateRegistry;
  /** The command runner (default: the real one). */
  cmd?: (root: string) => CommandRunner;
  /** The file client (default: the case's tree/ as the base env, as Salt's file_roots). */
  files?: (root: string) => FileClient;
  /** The template context (pillar, grains) states see, as the runtime hands it. */
  templateContext?: Record<string, unknown>;
  /** Called with the root after the last chunk, before the root is removed. */
  after?: (root: string) => Promise<void> | void;
  /** The host's execution functions (module.run). */
  exec?: ExecCaller;
  /** Folders of the root the harness itself writes (overlay work dirs), left out of the test-mode check. */
  scratch?: string[];
  /** More [recorded, here] text replacements in the chunks and results (a test server's address). */
  rewrite?: Array<[string, string]>;
}

interface Expected {
  warnings?: string[];
  result: boolean | null;
  comment: string;
  changes: Record<string, unknown>;
  __run_num__?: number;
  why?: string;
}

/** The cases recorded per module today: a folder emptied or moved must fail its test file, not pass it with nothing run. */
const MIN_CASES: Record<string, number> = {
  alternatives: 1,
  archive: 1,
  cron: 2,
  debconf: 1,
  file: 8,
  git: 3,
  group: 1,
  host: 1,
  locale: 1,
  module: 3,
  mount: 1,
  mysql: 1,
  pip: 1,
  pkgrepo: 1,
  service: 1,
  ssh_auth: 1,
  ssh_known_hosts: 1,
  sysctl: 1,
  template: 1,
  test: 2,
  timezone: 2,
  ufw: 1,
  user: 2,
};

export function goldenCases(module: string): string[] {
  const dir = join(goldenRoot, module);
  const cases = readdirSync(dir)
    .filter((c) => existsSync(join(dir, c, 'salt-run.json')))
    .map((c) => join(dir, c));
  const min = MIN_CASES[module] ?? 1;
  if (cases.length < min) throw new Error(`${dir}: ${cases.length} golden cases, expected at least ${min}`);
  return cases;
}

function relocate<T>(value: T, from: string, to: string): T {
  return JSON.parse(JSON.stringify(value).split(from).join(to)) as T;
}

/** Warnings are compared only where Salt gave some (cases made before they were kept have none). */
function comparable(r: { result: unknown; comment: unknown; changes: unknown; warnings?: unknown }, state: string, warnings = false) {
  const changes = { ...(r.changes as Record<string, unknown>) };
  if (state === 'cmd') delete changes.pid;
  return warnings ? { result: r.result, comment: r.comment, changes, warnings: r.warnings } : { result: r.result, comment: r.comment, changes };
}

/** Every path under root with its type, mode, owner and a hash of its bytes (or link target). */
export function rootState(root: string): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (dir: string) => {
    for (const n of readdirSync(dir).sort()) {
      const p = join(dir, n);
      const st = lstatSync(p);
      const meta = `${(st.mode & 0o7777).toString(8)} ${st.uid}:${st.gid}`;
      if (st.isDirectory()) {
        out[p.slice(root.length)] = `dir ${meta}`;
        walk(p);
      } else if (st.isSymbolicLink()) out[p.slice(root.length)] = `link ${readlinkSync(p)}`;
      else out[p.slice(root.length)] = `${st.isFile() ? createHash('sha256').update(readFileSync(p)).digest('hex') : 'special'} ${meta}`;
    }
  };
  walk(root);
  return out;
}

/** The paths whose state differs: {path: {before, after}}. */
function rootChanges(before: Record<string, string>, after: Record<string, string>, scratch: string[] = []): Record<string, unknown> {
  const changed: Record<string, unknown> = {};
  for (const p of new Set([...Object.keys(before), ...Object.keys(after)])) {
    if (scratch.some((s) => p.startsWith(`${s}/`))) continue;
    if (before[p] !== after[p]) changed[p] = { before: before[p] ?? null, after: after[p] ?? null };
  }
  return changed;
}

/** The tag under which a test-mode run reports the paths it changed in the case's root. */
export const TEST_MODE_ROOT_TAG = 'test mode leaves the case root as it was';

/** Runs one case in one mode; returns [tag, got, want] for every chunk. */
export async function runGoldenCase(caseDir: string, mode: 'run' | 'test', opts: GoldenOptions) {
  const saltRoot = `/tmp/brine-golden/${basename(dirname(caseDir))}-${basename(caseDir)}`;
  const file = mode === 'test' ? 'salt-run-test.json' : 'salt-run.json';
  const base = await mkdtemp(join(tmpdir(), 'brine-golden-'));
  const root = join(base, basename(saltRoot));
  try {
    await mkdir(root);
    if (existsSync(join(caseDir, 'setup.sh'))) execFileSync('bash', [join(caseDir, 'setup.sh'), root], { stdio: 'pipe' });
    const moves: Array<[string, string]> = [[saltRoot, root], ...(opts.rewrite ?? [])];
    const move = <T>(v: T): T => moves.reduce((acc, [from, to]) => relocate(acc, from, to), v);
    const low = move(JSON.parse(readFileSync(join(caseDir, 'salt-low.json'), 'utf8')) as LowChunk[]);
    const want = move(JSON.parse(readFileSync(join(caseDir, file), 'utf8')) as Record<string, Expected>);
    const overridesFile = join(caseDir, 'brine-expected.json');
    const overrides = existsSync(overridesFile)
      ? move((JSON.parse(readFileSync(overridesFile, 'utf8')) as Record<string, Record<string, Expected>>)[file] ?? {})
      : {};
    const registry = opts.registry(root);
    const cmd = opts.cmd?.(root);
    const files = opts.files?.(root) ?? dirFileClient({ base: [join(caseDir, 'tree')] });
    const order = [...low].sort((a, b) => (want[chunkTag(a)]?.__run_num__ ?? 0) - (want[chunkTag(b)]?.__run_num__ ?? 0));
    const running: RunningDict = {};
    const before = mode === 'test' ? rootState(root) : undefined;
    const out: Array<{ tag: string; got: ReturnType<typeof comparable>; want: ReturnType<typeof comparable>; why?: string }> = [];
    for (const chunk of order) {
      const tag = chunkTag(chunk);
      const got = await callState(
        registry,
        chunk,
        ctxFor(chunk, {
          test: mode === 'test',
          lowstate: low,
          running,
          files,
          ...(cmd ? { cmd } : {}),
          ...(opts.exec ? { exec: opts.exec } : {}),
          ...(opts.templateContext ? { templateContext: opts.templateContext } : {}),
        }),
      );
      running[tag] = { ...got, __run_num__: Object.keys(running).length } as RunningDict[string];
      const w = overrides[tag] ?? want[tag]!;
      const warn = w.warnings !== undefined;
      out.push({ tag, got: comparable(got, chunk.state, warn), want: comparable(w, chunk.state, warn), why: overrides[tag]?.why });
    }
    if (before) {
      const untouched = { result: true, comment: '', changes: {} };
      out.push({ tag: TEST_MODE_ROOT_TAG, got: { ...untouched, changes: rootChanges(before, rootState(root), opts.scratch) }, want: untouched });
    }
    await opts.after?.(root);
    return out;
  } finally {
    await rm(base, { recursive: true, force: true });
  }
}

/** Whether this process may make namespaces (root with unshare and nsenter). */
export function canUnshare(): boolean {
  if (process.getuid?.() !== 0) return false;
  try {
    execFileSync('unshare', ['-un', 'true'], { stdio: 'pipe' });
    return existsSync('/usr/bin/nsenter');
  } catch {
    return false;
  }
}

/** Every path under root: its mode, and its text when a file (salt-tree.json's layout). */
export function treeSnapshot(root: string): Record<string, { mode: string; type?: string; text?: string }> {
  const out: Record<string, { mode: string; type?: string; text?: string }> = {};
  const walk = (dir: string) => {
    for (const n of readdirSync(dir)) {
      const p = join(dir, n);
      const st = lstatSync(p);
      const mode = (st.mode & 0o7777).toString(8).padStart(4, '0');
      if (st.isDirectory()) {
        out[p.slice(root.length + 1)] = { mode, type: 'dir' };
        walk(p);
      } else if (st.isFile()) out[p.slice(root.length + 1)] = { mode, text: readFileSync(p, 'utf8') };
    }
  };
  walk(root);
  return out;
}

/**
 * A result whose file.recurse sections are compared sorted: Salt walks the files and its clean
 * list from Python sets, so their order in its test-mode comment and in `removed` varies.
 */
export function orderFree(v: { result: unknown; comment: unknown; changes: Record<string, unknown> }) {
  const comment = String(v.comment);
  const sections = comment.includes('#### ')
    ? comment
        .split(/\n*#### /)
        .filter(Boolean)
        .map((s) => (s.startsWith('removed ####') ? ['removed ####', ...s.split('\n').slice(1).sort()].join('\n') : s.trim()))
        .sort()
    : comment;
  const changes = { ...v.changes };
  if (Array.isArray(changes.removed)) changes.removed = [...(changes.removed as string[])].sort();
  return { result: v.result, comment: sections, changes };
}
