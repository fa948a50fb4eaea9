/**
 * dpkg's version ordering (lib/dpkg/version.c), so pkg.version_cmp needs no `dpkg
 * --compare-versions` processes (up to three, ~4 ms of CPU each) for versions of plain syntax.
 * Anything dpkg would warn about or refuse is left to dpkg itself.
 */

interface Parsed {
  epoch: number;
  upstream: string;
  revision: string;
}

const EPOCH = /^(\d{1,9}):/;
const UPSTREAM = /^\d[A-Za-z0-9.+~-]*$/;
const UPSTREAM_NO_HYPHEN = /^\d[A-Za-z0-9.+~]*$/;
const REVISION = /^[A-Za-z0-9.+~]+$/;

/** A version of the syntax dpkg reads without a warning, or undefined. */
function parse(v: string): Parsed | undefined {
  const e = EPOCH.exec(v);
  const rest = e ? v.slice(e[0].length) : v;
  const dash = rest.lastIndexOf('-');
  const upstream = dash < 0 ? rest : rest.slice(0, dash);
  const revision = dash < 0 ? '' : rest.slice(dash + 1);
  if (dash < 0 ? !UPSTREAM_NO_HYPHEN.test(upstream) : !UPSTREAM.test(upstream) || !REVISION.test(revision)) return undefined;
  return { epoch: e ? Number(e[1]) : 0, upstream, revision };
}

const isDigit = (c: number) => c >= 48 && c <= 57;
const isAlpha = (c: number) => (c >= 65 && c <= 90) || (c >= 97 && c <= 122);

/** dpkg's order(): digits and the end 0, letters their code, ~ before all, others after letters. */
function order(c: number): number {
  if (Number.isNaN(c) || isDigit(c)) return 0;
  if (isAlpha(c)) return c;
  if (c === 126) return -1;
  return c + 256;
}

/** dpkg's verrevcmp: alternating non-digit runs (by order) and digit runs (by value). */
function verrevcmp(a: string, b: string): number {
  let i = 0;
  let j = 0;
  while (i < a.length || j < b.length) {
    let firstDiff = 0;
    while ((i < a.length && !isDigit(a.charCodeAt(i))) || (j < b.length && !isDigit(b.charCodeAt(j)))) {
      const ac = order(a.charCodeAt(i));
      const bc = order(b.charCodeAt(j));
      if (ac !== bc) return ac - bc;
      i++;
      j++;
    }
    while (a.charCodeAt(i) === 48) i++;
    while (b.charCodeAt(j) === 48) j++;
    while (isDigit(a.charCodeAt(i)) && isDigit(b.charCodeAt(j))) {
      if (!firstDiff) firstDiff = a.charCodeAt(i) - b.charCodeAt(j);
      i++;
      j++;
    }
    if (isDigit(a.charCodeAt(i))) return 1;
    if (isDigit(b.charCodeAt(j))) return -1;
    if (firstDiff) return firstDiff;
  }
  return 0;
}

/** -1, 0 or 1 as `dpkg --compare-versions` orders a and b, or undefined when dpkg must say. */
export function dpkgVersionCompare(a: string, b: string): number | undefined {
  const pa = parse(a);
  const pb = parse(b);
  if (!pa || !pb) return undefined;
  const rc = pa.epoch - pb.epoch || verrevcmp(pa.upstream, pb.upstream) || verrevcmp(pa.revision, pb.revision);
  return Math.sign(rc);
}
