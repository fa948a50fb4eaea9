import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/** A bare repository in a temp dir and a work tree that pushes to it: real git, no mocks. */
export class TestRepo {
  readonly bare: string;
  readonly work: string;
  private started = false;
  constructor(dir = mkdtempSync(path.join(os.tmpdir(), 'brine-gitfs-'))) {
    this.bare = path.join(dir, 'remote.git');
    this.work = path.join(dir, 'work');
    execFileSync('git', ['init', '--quiet', '--bare', '-b', 'master', this.bare]);
    execFileSync('git', ['init', '--quiet', '-b', 'master', this.work]);
  }

  git(...args: string[]): string {
    return execFileSync('git', ['-C', this.work, '-c', 'user.name=Brine Test', '-c', 'user.email=test@brine.invalid', ...args], { encoding: 'utf8' });
  }

  /** Writes `files` on `branch` (made from the current one if new), commits and pushes it. */
  commit(branch: string, files: Record<string, string>, message = 'change'): string {
    const has = this.git('branch', '--list', branch).trim() !== '';
    if (this.started || branch !== 'master') this.git('checkout', '--quiet', ...(has ? [branch] : ['-b', branch]));
    this.started = true;
    for (const [rel, text] of Object.entries(files)) {
      mkdirSync(path.dirname(path.join(this.work, rel)), { recursive: true });
      writeFileSync(path.join(this.work, rel), text);
    }
    this.git('add', '-A');
    this.git('commit', '--quiet', '-m', message);
    this.git('push', '--quiet', this.bare, `${branch}:${branch}`);
    return this.git('rev-parse', 'HEAD').trim();
  }
}
