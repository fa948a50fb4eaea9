/**
 * Bounds of the free-form JSON a minion sends. A value nested thousands of levels deep fits in
 * a small frame but breaks whatever walks it recursively on the master (structured clones to the
 * compile workers, JSON.stringify for the store), so depth is bounded as well as size.
 */

/** Grains, request args and host answers: what a compile reads. */
export const MAX_DATA_DEPTH = 64;
/** Returns and state results: stored and shown, never compiled; Salt data is rarely past 20. */
export const MAX_RESULT_DEPTH = 512;
/** Grains of a real host are a few KB; custom grains of the minion config add to them. */
export const MAX_GRAINS_BYTES = 256 * 1024;
/**
 * The mine keeps at most this many functions per minion, each value at most this much JSON
 * (network.ip_addrs is a few hundred bytes, grains.items a few dozen KB): the master refuses a
 * push past either, the minion leaves such a value out and says so.
 */
export const MINE_MAX_FUNCTIONS = 64;
export const MINE_MAX_VALUE_BYTES = 128 * 1024;

export type JsonBoundsProblem = { kind: 'depth'; limit: number; at: string } | { kind: 'size'; limit: number; size: number };

interface Node {
  value: unknown;
  depth: number;
  key: string;
  parent: Node | undefined;
}

/** `a.b[0]...` of a node, the first few steps only (a path 64 levels long says nothing more). */
function pathOf(node: Node): string {
  const keys: string[] = [];
  for (let n: Node | undefined = node; n; n = n.parent) keys.push(n.key);
  keys.reverse();
  const shown = keys.slice(0, 6).join('');
  return keys.length > 6 ? `${shown}...` : shown;
}

/**
 * Whether `value` stays within `maxDepth` levels of arrays and objects and about `maxBytes`
 * of JSON text, walked without recursion and stopped at the first excess. `name` starts the
 * path named in a depth problem.
 */
export function checkJsonBounds(value: unknown, name: string, maxDepth: number, maxBytes = Infinity): JsonBoundsProblem | undefined {
  const stack: Node[] = [{ value, depth: 0, key: name, parent: undefined }];
  let size = 0;
  while (stack.length > 0) {
    const node = stack.pop()!;
    const v = node.value;
    if (typeof v === 'string') size += v.length + 2;
    else if (v === null || typeof v !== 'object') size += String(v).length;
    else {
      if (node.depth >= maxDepth) return { kind: 'depth', limit: maxDepth, at: pathOf(node) };
      size += 2;
      if (Array.isArray(v)) {
        v.forEach((item, i) => stack.push({ value: item, depth: node.depth + 1, key: `[${i}]`, parent: node }));
        size += v.length;
      } else {
        for (const [k, item] of Object.entries(v)) {
          size += k.length + 4;
          stack.push({ value: item, depth: node.depth + 1, key: `.${k}`, parent: node });
        }
      }
    }
    if (size > maxBytes) return { kind: 'size', limit: maxBytes, size };
  }
  return undefined;
}
