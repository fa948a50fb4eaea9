/**
 * Unified diffs that read exactly like Python's difflib (which Salt uses for `changes.diff`):
 * the same matching-block algorithm (longest match first, popular-line heuristic past 200
 * lines), the same hunk grouping with 3 lines of context, the same range format.
 */

type Opcode = ['equal' | 'replace' | 'delete' | 'insert', number, number, number, number];

class SequenceMatcher {
  private b2j = new Map<string, number[]>();

  private a: string[];
  private b: string[];
  constructor(a: string[], b: string[]) {
    this.a = a;
    this.b = b;
    b.forEach((line, j) => {
      const list = this.b2j.get(line);
      if (list) list.push(j);
      else this.b2j.set(line, [j]);
    });
    const n = b.length;
    if (n >= 200) {
      const ntest = Math.floor(n / 100) + 1;
      for (const [line, idxs] of [...this.b2j]) if (idxs.length > ntest) this.b2j.delete(line);
    }
  }

  private longestMatch(alo: number, ahi: number, blo: number, bhi: number): [number, number, number] {
    const { a, b } = this;
    let besti = alo;
    let bestj = blo;
    let bestsize = 0;
    let j2len = new Map<number, number>();
    for (let i = alo; i < ahi; i++) {
      const next = new Map<number, number>();
      for (const j of this.b2j.get(a[i]) ?? []) {
        if (j < blo) continue;
        if (j >= bhi) break;
        const k = (j2len.get(j - 1) ?? 0) + 1;
        next.set(j, k);
        if (k > bestsize) {
          besti = i - k + 1;
          bestj = j - k + 1;
          bestsize = k;
        }
      }
      j2len = next;
    }
    while (besti > alo && bestj > blo && a[besti - 1] === b[bestj - 1]) {
      besti--;
      bestj--;
      bestsize++;
    }
    while (besti + bestsize < ahi && bestj + bestsize < bhi && a[besti + bestsize] === b[bestj + bestsize]) bestsize++;
    return [besti, bestj, bestsize];
  }

  private matchingBlocks(): Array<[number, number, number]> {
    const la = this.a.length;
    const lb = this.b.length;
    const queue: Array<[number, number, number, number]> = [[0, la, 0, lb]];
    const blocks: Array<[number, number, number]> = [];
    while (queue.length) {
      const [alo, ahi, blo, bhi] = queue.pop()!;
      const [i, j, k] = this.longestMatch(alo, ahi, blo, bhi);
      if (k) {
        blocks.push([i, j, k]);
        if (alo < i && blo < j) queue.push([alo, i, blo, j]);
        if (i + k < ahi && j + k < bhi) queue.push([i + k, ahi, j + k, bhi]);
      }
    }
    blocks.sort((x, y) => x[0] - y[0] || x[1] - y[1] || x[2] - y[2]);
    const merged: Array<[number, number, number]> = [];
    let [i1, j1, k1] = [0, 0, 0];
    for (const [i2, j2, k2] of blocks) {
      if (i1 + k1 === i2 && j1 + k1 === j2) k1 += k2;
      else {
        if (k1) merged.push([i1, j1, k1]);
        [i1, j1, k1] = [i2, j2, k2];
      }
    }
    if (k1) merged.push([i1, j1, k1]);
    merged.push([la, lb, 0]);
    return merged;
  }

  opcodes(): Opcode[] {
    let i = 0;
    let j = 0;
    const out: Opcode[] = [];
    for (const [ai, bj, size] of this.matchingBlocks()) {
      const tag = i < ai && j < bj ? 'replace' : i < ai ? 'delete' : j < bj ? 'insert' : '';
      if (tag) out.push([tag, i, ai, j, bj]);
      i = ai + size;
      j = bj + size;
      if (size) out.push(['equal', ai, i, bj, j]);
    }
    return out;
  }

  groupedOpcodes(n = 3): Opcode[][] {
    let codes = this.opcodes();
    if (codes.length === 0) codes = [['equal', 0, 1, 0, 1]];
    if (codes[0][0] === 'equal') {
      const [t, i1, i2, j1, j2] = codes[0];
      codes[0] = [t, Math.max(i1, i2 - n), i2, Math.max(j1, j2 - n), j2];
    }
    const last = codes.length - 1;
    if (codes[last][0] === 'equal') {
      const [t, i1, i2, j1, j2] = codes[last];
      codes[last] = [t, i1, Math.min(i2, i1 + n), j1, Math.min(j2, j1 + n)];
    }
    const groups: Opcode[][] = [];
    let group: Opcode[] = [];
    for (const code of codes) {
      let [t, i1, i2, j1, j2] = code;
      if (t === 'equal' && i2 - i1 > 2 * n) {
        group.push([t, i1, Math.min(i2, i1 + n), j1, Math.min(j2, j1 + n)]);
        groups.push(group);
        group = [];
        i1 = Math.max(i1, i2 - n);
        j1 = Math.max(j1, j2 - n);
      }
      group.push([t, i1, i2, j1, j2]);
    }
    if (group.length && !(group.length === 1 && group[0][0] === 'equal')) groups.push(group);
    return groups;
  }
}

function range(start: number, stop: number): string {
  let beginning = start + 1;
  const length = stop - start;
  if (length === 1) return String(beginning);
  if (!length) beginning -= 1;
  return `${beginning},${length}`;
}

/** difflib.unified_diff's lines (headers with `lineterm`, content lines as given). */
export function unifiedDiffLines(a: string[], b: string[], lineterm = '\n'): string[] {
  const out: string[] = [];
  const groups = new SequenceMatcher(a, b).groupedOpcodes(3);
  for (const group of groups) {
    if (out.length === 0) out.push(`--- ${lineterm}`, `+++ ${lineterm}`);
    const first = group[0];
    const last = group[group.length - 1];
    out.push(`@@ -${range(first[1], last[2])} +${range(first[3], last[4])} @@${lineterm}`);
    for (const [t, i1, i2, j1, j2] of group) {
      if (t === 'equal') {
        for (const l of a.slice(i1, i2)) out.push(` ${l}`);
        continue;
      }
      if (t === 'replace' || t === 'delete') for (const l of a.slice(i1, i2)) out.push(`-${l}`);
      if (t === 'replace' || t === 'insert') for (const l of b.slice(j1, j2)) out.push(`+${l}`);
    }
  }
  return out;
}

/** Lines keeping their line endings, like Python's readlines(). */
export function linesWithEnds(text: string): string[] {
  return text.match(/[^\n]*\n|[^\n]+$/g) ?? [];
}

/** Salt's file diff (file.managed, file.replace): lines with their endings, concatenated. */
export function fileDiff(oldText: string, newText: string): string {
  return unifiedDiffLines(linesWithEnds(oldText), linesWithEnds(newText)).join('');
}

/** Salt's file.append/line diff: lines without endings, joined with newlines. */
export function lineDiff(oldLines: string[], newLines: string[]): string {
  return unifiedDiffLines(oldLines, newLines).join('\n');
}
