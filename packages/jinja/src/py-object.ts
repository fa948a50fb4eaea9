/**
 * A value may answer template lookups itself: `a.b`, `a['b']`, `a.b(...)` and `for x in a` ask
 * its hooks first. Plain data never carries them; `brine validate`'s recording params and the
 * strict params dictionary of `brine local` do.
 */
export const PY_OBJECT = Symbol('brine.jinja.pyObject');

export interface PyObjectHooks {
  /**
   * `a.b` / `a['b']` (call false) or the callee of `a.b(...)` (call true). `next` is what the
   * lookup gives for a value without hooks.
   */
  lookup?(key: unknown, call: boolean, next: () => unknown): unknown;
  /** What `for x in a` iterates over. */
  iter?(): unknown[];
}

export function pyHooks(v: unknown): PyObjectHooks | undefined {
  if (v === null || typeof v !== 'object') return undefined;
  return (v as { [PY_OBJECT]?: PyObjectHooks })[PY_OBJECT];
}
