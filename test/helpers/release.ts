import { execFileSync, spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { REPO } from './proc.js';

export interface ReleaseArtifacts {
  version: string;
  /** brine-VERSION-linux-x64.tar.gz */
  tarball: string;
  /** brine_VERSION_amd64.deb */
  deb: string;
}

/**
 * `npm run release` (x64 only) once per commit, kept in the temp dir for every test that needs the
 * artifacts: the tests that use them share one build (under a kernel lock, so two test files
 * starting together do not build twice).
 */
export function releaseArtifacts(): ReleaseArtifacts {
  const commit = execFileSync('git', ['rev-parse', 'HEAD'], { cwd: REPO, encoding: 'utf8' }).trim();
  const out = path.join(os.tmpdir(), `brine-release-${commit.slice(0, 12)}`);
  const version = (JSON.parse(readFileSync(path.join(REPO, 'package.json'), 'utf8')) as { version: string }).version;
  const deb = path.join(out, `brine_${version}_amd64.deb`);
  // built into a side folder and renamed, so an interrupted build is never taken for a finished one
  const build = '[ -e "$DEB" ] || { BRINE_RELEASE_OUT="$OUT.$$" npm run release && rm -rf "$OUT" && mv "$OUT.$$" "$OUT"; }';
  const r = spawnSync('flock', [`${out}.lock`, 'sh', '-c', build], {
    cwd: REPO,
    env: { ...process.env, DEB: deb, OUT: out, BRINE_RELEASE_ARCHES: 'x64' },
    encoding: 'utf8',
  });
  if (r.status !== 0) throw new Error(`npm run release failed:\n${r.stdout}\n${r.stderr}`);
  return { version, tarball: path.join(out, `brine-${version}-linux-x64.tar.gz`), deb };
}
