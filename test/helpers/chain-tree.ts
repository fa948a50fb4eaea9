/** The tree of bench/salt-compare.mjs's lowstate-10k workload, at any size, for tests. */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * The text of file `f` of bench/salt-compare.mjs's lowstate-10k tree (`perFile` states, each
 * requiring the one before it, across files).
 */
export function chainStateFile(f: number, perFile: number): string {
  let text = '';
  for (let i = 0; i < perFile; i++) {
    text += `s_${f}_${i}:\n  test.succeed_without_changes:${f === 0 && i === 0 ? ' []' : ''}\n`;
    if (i > 0) text += `    - require:\n      - test: s_${f}_${i - 1}\n`;
    else if (f > 0) text += `    - require:\n      - test: s_${f - 1}_${perFile - 1}\n`;
  }
  return text;
}

/** `files` files of `perFile` chained states under `root`/gen, and a top file applying them all. */
export function chainTree(root: string, files: number, perFile: number): void {
  mkdirSync(join(root, 'gen'), { recursive: true });
  writeFileSync(join(root, 'top.sls'), "base:\n  '*':\n    - gen.*\n");
  for (let f = 0; f < files; f++) writeFileSync(join(root, 'gen', `f${f}.sls`), chainStateFile(f, perFile));
}
