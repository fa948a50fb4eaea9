import { forgetAtSnapshotRestore, packageFile, packageRequire, trusted, userCacheDir } from '@brine/core';
import { createHash, randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { startupSnapshot } from 'node:v8';
import { Script } from 'node:vm';

/**
 * Compiled template code kept on disk, like Python's .pyc: turning a template into JavaScript
 * costs about a millisecond each, and a `brine local` run over a hundred templates paid it on
 * every start. Entries are keyed by the template's name and text and by the dialect's own code,
 * so a changed template or a new Brine never reads a stale entry. Set BRINE_TEMPLATE_CACHE to a
 * directory to move it, or to `off` to disable it; failures to read or write are ignored.
 */
let dir: string | null | undefined;
forgetAtSnapshotRestore(() => (dir = undefined));

// The dialect's own code is part of the key: the built .js (which the CLI's bundle is made from
// and checked against), or the .ts when run from source. Hashed once a process, and in the
// startup snapshot once at its build: the code the blob runs, not what lies on disk at each run
// (reading and hashing the files took ~1.4 ms of every `brine local`).
let stamp: string | null | undefined;

function dialectStamp(): string | null {
  if (stamp !== undefined) return stamp;
  try {
    const fromSource = import.meta.url.endsWith('.ts');
    const here = packageFile('jinja', fromSource ? 'src' : 'dist');
    const h = createHash('sha256');
    for (const f of ['dialect', 'dialect-parser', 'environment']) h.update(readFileSync(join(here, `${f}.${fromSource ? 'ts' : 'js'}`)));
    // read, not required: the snapshot's build loads nothing from node_modules
    const nunjucksPackage = readFileSync(packageRequire('jinja').resolve('nunjucks/package.json'), 'utf8');
    h.update((JSON.parse(nunjucksPackage) as { version: string }).version);
    stamp = h.digest('hex').slice(0, 16);
  } catch {
    stamp = null;
  }
  return stamp;
}
if (startupSnapshot.isBuildingSnapshot()) dialectStamp();

function cacheDir(): string | null {
  if (dir !== undefined) return dir;
  const setting = process.env.BRINE_TEMPLATE_CACHE;
  if (setting === 'off' || setting === '0') return (dir = null);
  try {
    const key = dialectStamp();
    // cached code runs with `new Function`: a folder someone else can write to is not used
    const base = key && userCacheDir('jinja', setting);
    if (!base) return (dir = null);
    dir = join(base, key);
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    if (!trusted(dir)) dir = null;
  } catch {
    dir = null;
  }
  return dir;
}

// the last entry asked for: compileTemplate reads it, then runs it (one hash per template)
let last: { name: string; src: string; dir: string; file: string } | undefined;

function entry(name: string, src: string): string | null {
  const d = cacheDir();
  if (!d) return null;
  if (last && last.dir === d && last.name === name && last.src === src) return last.file;
  const file = join(d, `${createHash('sha256').update(name).update('\0').update(src).digest('hex').slice(0, 40)}.js`);
  last = { name, src, dir: d, file };
  return file;
}

export function readCompiled(name: string, src: string): string | undefined {
  const file = entry(name, src);
  if (!file) return undefined;
  try {
    return readFileSync(file, 'utf8');
  } catch {
    return undefined;
  }
}

export function writeCompiled(name: string, src: string, code: string): void {
  const file = entry(name, src);
  if (!file) return;
  const tmp = `${file}.${randomBytes(4).toString('hex')}.tmp`;
  try {
    writeFileSync(tmp, code, { mode: 0o600 });
    renameSync(tmp, file);
  } catch {
    // A cache that cannot be written only costs speed.
  }
}

/**
 * Runs compiled template code as `new Function(code)()` does, with V8's code cache of it kept
 * beside its entry (`.<how the process started>.v8`): parsing and compiling the code of a
 * formula's templates again, each run, took several ms (mongodb's are 280 kB). The cache is made
 * from the functions a run
 * compiled, so it is written after it: at the process's exit, or a second after, whichever first.
 */
export function runCompiled(name: string, src: string, code: string): Record<string, unknown> {
  const file = entry(name, src);
  if (!file) return new Function(code)() as Record<string, unknown>;
  let cachedData: Buffer | undefined;
  try {
    cachedData = readFileSync(`${file}.${flavour()}.v8`);
  } catch {
    cachedData = undefined;
  }
  const script = new Script(`(function () {\n${code}\n})`, { cachedData });
  if (!cachedData || script.cachedDataRejected) cacheLater(`${file}.${flavour()}.v8`, script);
  return (script.runInThisContext({ displayErrors: false }) as () => Record<string, unknown>)();
}

// V8 takes a code cache only from a process started as this one (the same startup snapshot,
// flags): a run from the snapshot and a master from the modules, or two builds' snapshots, would
// each refuse and rewrite the other's at every run. Each way of starting has its own.
let started: string | undefined;
forgetAtSnapshotRestore(() => (started = undefined));

function flavour(): string {
  return (started ??= createHash('sha256').update(process.execPath).update('\0').update(process.execArgv.join('\0')).digest('hex').slice(0, 8));
}

const pending = new Map<string, Script>();
let atExit = false;

function cacheLater(file: string, script: Script): void {
  if (pending.size === 0) {
    if (!atExit) process.once('exit', writeCodeCaches);
    atExit = true;
    setTimeout(writeCodeCaches, 1000).unref();
  }
  // a long-lived process rendering ever new templates keeps a bounded number waiting
  if (pending.size < 1000) pending.set(file, script);
}

function writeCodeCaches(): void {
  for (const [file, script] of pending) {
    const tmp = `${file}.${randomBytes(4).toString('hex')}.tmp`;
    try {
      writeFileSync(tmp, script.createCachedData(), { mode: 0o600 });
      renameSync(tmp, file);
    } catch {
      // A cache that cannot be written only costs speed.
    }
  }
  pending.clear();
}
