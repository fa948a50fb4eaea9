/**
 * Which names a walk of a state or pillar tree serves. Salt's roots file server serves dot files
 * (a formula's `files/.keep`, a `.bashrc` handed out by file.recurse), and so does Brine; the
 * folders of a version-control system are left out, as nothing a state asks for lives there and
 * a `.git` can be the largest part of a tree.
 */
const VCS_FOLDERS = new Set(['.git', '.hg', '.svn', '.bzr', 'CVS']);

export function servedTreeName(name: string): boolean {
  return !VCS_FOLDERS.has(name);
}

/** `base` first, then the others alphabetically: Salt's default env order. */
export function sortEnvs(envs: string[]): string[] {
  return [...envs].sort((a, b) => (a === 'base' ? -1 : b === 'base' ? 1 : a < b ? -1 : a > b ? 1 : 0));
}
