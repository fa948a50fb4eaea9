import { spawnSync } from 'node:child_process';
import { cpSync, mkdirSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { REPO } from '../support/brine-cli.js';

/**
 * A copy of Brine's built code in `dir` (packages/X/{package.json,dist,bin}, the build scripts,
 * node_modules linked, @brine/X leading to the copy), with its bundle and startup snapshot made
 * there by the build's own scripts: a test may make them stale without disturbing the tests
 * that run the repository's `brine` meanwhile. (As test/cli-bundle.test.ts's copy, plus the snapshot.)
 */
export function copyInstall(
  dir: string,
  env: NodeJS.ProcessEnv = {},
  { scripts = ['bundle.mjs', 'bundle-inside.mjs', 'snapshot.mjs'], packageJson = readFileSync(path.join(REPO, 'package.json'), 'utf8') } = {},
): void {
  writeFileSync(path.join(dir, 'package.json'), packageJson);
  mkdirSync(path.join(dir, 'scripts'));
  for (const s of scripts) cpSync(path.join(REPO, 'scripts', s), path.join(dir, 'scripts', s));
  const packages = readdirSync(path.join(REPO, 'packages'));
  for (const pkg of packages) {
    const from = path.join(REPO, 'packages', pkg);
    const to = path.join(dir, 'packages', pkg);
    mkdirSync(to, { recursive: true });
    cpSync(path.join(from, 'package.json'), path.join(to, 'package.json'));
    cpSync(path.join(from, 'dist'), path.join(to, 'dist'), {
      recursive: true,
      filter: (f) => !/[/\\]dist[/\\](bundle|snapshot)$/.test(f) && !f.endsWith('.map'),
    });
    if (pkg === 'cli') cpSync(path.join(from, 'bin'), path.join(to, 'bin'), { recursive: true });
    for (const extra of ['ui', 'node_modules']) {
      try {
        symlinkSync(path.join(from, extra), path.join(to, extra));
      } catch {}
    }
  }
  mkdirSync(path.join(dir, 'node_modules/@brine'), { recursive: true });
  for (const name of readdirSync(path.join(REPO, 'node_modules'))) {
    if (name !== '@brine' && name !== '.bin') symlinkSync(path.join(REPO, 'node_modules', name), path.join(dir, 'node_modules', name));
  }
  for (const pkg of packages) symlinkSync(path.join('..', '..', 'packages', pkg), path.join(dir, 'node_modules/@brine', pkg));
  for (const script of scripts.map((s) => `scripts/${s}`)) {
    const r = spawnSync(process.execPath, [script], { cwd: dir, encoding: 'utf8', env: { ...process.env, ...env } });
    if (r.status !== 0) throw new Error(`${script}: ${r.stderr}`);
  }
}
