import type { StateResultItem } from '@brine/protocol';

/**
 * Results that fit a frame (Salt's `max_event_size`): a state result or a return larger than
 * the budget is trimmed rather than lost. Strings are cut first (the longest to one length, a
 * state's `comment` last) and end with a marker saying how much was dropped; what
 * still does not fit (a change set of many small entries) is replaced by a note.
 */

/** Room in a frame for what surrounds a result (envelope, jid, fun, tag, run_num, times). */
export const FRAME_ROOM = 4096;

/** A string shorter than this is not worth cutting: the marker would take its place. */
const MIN_CUT = 256;

/** The key of the note standing for a value trimmed as a whole (a return, a change set). */
export const TRIMMED_KEY = '__trimmed__';

export function jsonBytes(v: unknown): number {
  return Buffer.byteLength(JSON.stringify(v) ?? 'null');
}

function note(dropped: number, limit: number): string {
  return `[${dropped} bytes trimmed by the minion: over the limit of ${limit} bytes (max_event_size)]`;
}

/** A running dict: every key a state tag. */
export function isRunningDict(v: unknown): v is Record<string, Record<string, unknown>> {
  return typeof v === 'object' && v !== null && !Array.isArray(v) && Object.keys(v).length > 0 && Object.keys(v).every((k) => k.includes('_|-'));
}

interface Leaf {
  holder: Record<string, unknown> | unknown[];
  key: string | number;
  bytes: number;
  /** 1 a state's `comment` (cut last), 0 or -1 (under `changes`) anything else. */
  rank: number;
}

/** The strings worth cutting in `root` (walked without recursion: results may nest deep). */
function collect(root: Leaf['holder'], key: string | number): Leaf[] {
  const out: Leaf[] = [];
  const stack: Array<[unknown, number, Leaf['holder'], string | number]> = [[(root as Record<string | number, unknown>)[key], 0, root, key]];
  while (stack.length > 0) {
    const [v, rank, holder, k] = stack.pop()!;
    if (typeof v === 'string') {
      if (v.length >= MIN_CUT) out.push({ holder, key: k, bytes: jsonBytes(v), rank });
    } else if (Array.isArray(v)) v.forEach((x, i) => stack.push([x, rank, v, i]));
    else if (typeof v === 'object' && v !== null) {
      const o = v as Record<string, unknown>;
      // a state's comment is cut last; strings under `changes` are not a state's comment
      for (const c of Object.keys(o)) stack.push([o[c], c === 'changes' ? -1 : c === 'comment' && rank === 0 ? 1 : rank, o, c]);
    }
  }
  return out;
}

/** The size the largest of `bytes` (sorted, largest first) are cut to, so that `need` bytes go. */
function level(bytes: number[], need: number): number {
  let sum = 0;
  for (let k = 0; k < bytes.length; k++) {
    sum += bytes[k]!;
    const next = bytes[k + 1] ?? 0;
    if (sum - (k + 1) * next >= need) return Math.max(0, Math.floor((sum - need) / (k + 1)));
  }
  return 0;
}

/** The longest start of `s` that, with the marker, takes at most `target` bytes as JSON. */
function cut(s: string, target: number, limit: number): string {
  const mark = (kept: number) => `\n... ${note(Buffer.byteLength(s) - kept, limit)}`;
  let lo = 0;
  // a character takes at least one byte
  let hi = Math.min(s.length, Math.max(0, target));
  while (lo < hi) {
    const mid = Math.ceil((lo + hi) / 2);
    const head = s.slice(0, mid);
    if (jsonBytes(head + mark(Buffer.byteLength(head))) <= target) lo = mid;
    else hi = mid - 1;
  }
  const head = s.slice(0, lo);
  return head + mark(Buffer.byteLength(head));
}

/**
 * `value` as it fits in `budget` bytes of JSON (a copy when trimmed); `limit` is the limit
 * named in the markers. Returns how many bytes were dropped (0: unchanged).
 */
export function trimToFit(value: unknown, budget: number, limit = budget): { value: unknown; dropped: number } {
  const size = jsonBytes(value);
  if (size <= budget) return { value, dropped: 0 };
  const box: Record<string, unknown> = { v: JSON.parse(JSON.stringify(value) ?? 'null') as unknown };
  let total = size;
  const leaves = collect(box, 'v');
  for (const last of [false, true]) {
    // the longest strings are cut to one level, so that each keeps its start; comments last
    const group = leaves.filter((l) => (l.rank === 1) === last).sort((a, b) => b.bytes - a.bytes);
    for (let pass = 0; pass < 3 && total > budget && group.length > 0; pass++) {
      const cap = level(
        group.map((l) => l.bytes),
        total - budget,
      );
      for (const leaf of group) {
        if (leaf.bytes <= cap) break;
        const holder = leaf.holder as Record<string | number, unknown>;
        const short = cut(holder[leaf.key] as string, cap, limit);
        const bytes = jsonBytes(short);
        if (bytes >= leaf.bytes) continue;
        holder[leaf.key] = short;
        total += bytes - leaf.bytes;
        leaf.bytes = bytes;
      }
    }
  }
  const copy = box.v;
  if (total <= budget) return { value: copy, dropped: size - total };
  // what is left is structure (many small entries): change sets become a note, largest first
  const sets: Array<{ holder: Record<string, unknown>; bytes: number }> = [];
  const states = isRunningDict(copy) ? Object.values(copy) : [copy];
  for (const st of states) {
    if (typeof st === 'object' && st !== null && 'changes' in st) sets.push({ holder: st as Record<string, unknown>, bytes: jsonBytes(st.changes) });
  }
  sets.sort((a, b) => b.bytes - a.bytes);
  for (const set of sets) {
    if (total <= budget) break;
    const replaced = { [TRIMMED_KEY]: note(set.bytes, limit) };
    if (jsonBytes(replaced) >= set.bytes) continue;
    set.holder.changes = replaced;
    total += jsonBytes(replaced) - set.bytes;
  }
  if (total <= budget) return { value: copy, dropped: size - total };
  return { value: whole(copy, size, budget, limit), dropped: size };
}

/** The last resort: a state result keeps its verdict, a running dict becomes a note, the rest a marker. */
function whole(v: unknown, size: number, budget: number, limit: number): unknown {
  const text = note(size, limit);
  if (isRunningDict(v)) return { [TRIMMED_KEY]: `${text}; its state results are stored one by one (brine jobs show)` };
  if (typeof v === 'object' && v !== null && 'result' in v) {
    const st = v as Record<string, unknown>;
    const comment = typeof st.comment === 'string' ? st.comment : '';
    const keep: Record<string, unknown> = { result: st.result, comment: '', changes: { [TRIMMED_KEY]: text } };
    for (const k of ['name', '__id__', '__sls__', '__run_num__', 'start_time', 'duration']) if (k in st) keep[k] = st[k];
    keep.comment = comment.length > 0 ? cut(comment, Math.max(64, budget - jsonBytes(keep) - 8), limit) : comment;
    if (jsonBytes(keep) <= budget) return keep;
  }
  return text;
}

/** A state result trimmed to fit `budget` bytes of frame with its tag and run number. */
export function trimStateItem(item: StateResultItem, budget: number, limit = budget): StateResultItem {
  const room = budget - jsonBytes(item.tag) - 64;
  const { value, dropped } = trimToFit(item.ret, Math.max(1024, room), limit);
  return dropped === 0 ? item : { ...item, ret: value as Record<string, unknown> };
}

/** Items in groups whose JSON takes at most `maxBytes` each (an item alone always makes a group). */
export function batchByBytes<T>(items: T[], maxBytes: number): T[][] {
  const out: T[][] = [];
  let cur: T[] = [];
  let bytes = 0;
  for (const it of items) {
    const n = jsonBytes(it) + 1;
    if (cur.length > 0 && bytes + n > maxBytes) {
      out.push(cur);
      cur = [];
      bytes = 0;
    }
    cur.push(it);
    bytes += n;
  }
  if (cur.length > 0) out.push(cur);
  return out;
}
