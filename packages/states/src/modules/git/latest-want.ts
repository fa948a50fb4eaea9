/** What a git.latest run asks for (its arguments, worked out) and what the remote has for it. */

export type RevType = 'sha1' | 'branch' | 'tag' | null;

export interface Want {
  name: string;
  target: string;
  rev: string;
  branch?: string;
  remote: string;
  forceReset: boolean | 'remote-changes';
  forceClone: boolean;
  forceCheckout: boolean;
  forceFetch: boolean;
  updateHead: boolean;
  depth?: number;
  submodules: boolean;
  refspecs: string[];
  syncTags: boolean;
}

export interface Remote {
  rev: string | null;
  type: RevType;
  upstream: string | null | false;
  loc: string | null;
  defaultBranch: string | null;
  hasHead: boolean;
}

/** Whether two revisions are the same (a sha1 rev may be abbreviated); null is the same only as null. */
export function revsEqual(a: string | null, b: string | null, type: RevType): boolean {
  if ((a === null) !== (b === null)) return false;
  if (a === null || b === null) return true;
  return type === 'sha1' ? a.startsWith(b) : a === b;
}
