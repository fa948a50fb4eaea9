import { createHash, randomBytes } from 'node:crypto';

/**
 * SHA-crypt ($5$ and $6$, Drepper's specification), the password hashes /etc/shadow holds: Node
 * has no crypt(3), and the hash must equal what crypt gives for the same salt, or re-hashing an
 * unchanged password with the salt already in /etc/shadow (as Salt's hash_password does) would
 * report a change on every run.
 */

const ITOA64 = './0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

// which digest bytes go into each group of four characters
const ORDER = {
  sha512: [
    [0, 21, 42],
    [22, 43, 1],
    [44, 2, 23],
    [3, 24, 45],
    [25, 46, 4],
    [47, 5, 26],
    [6, 27, 48],
    [28, 49, 7],
    [50, 8, 29],
    [9, 30, 51],
    [31, 52, 10],
    [53, 11, 32],
    [12, 33, 54],
    [34, 55, 13],
    [56, 14, 35],
    [15, 36, 57],
    [37, 58, 16],
    [59, 17, 38],
    [18, 39, 60],
    [40, 61, 19],
    [62, 20, 41],
  ],
  sha256: [
    [0, 10, 20],
    [21, 1, 11],
    [12, 22, 2],
    [3, 13, 23],
    [24, 4, 14],
    [15, 25, 5],
    [6, 16, 26],
    [27, 7, 17],
    [18, 28, 8],
    [9, 19, 29],
  ],
} as const;

export type ShaCryptAlgorithm = 'sha256' | 'sha512';

function b64(b2: number, b1: number, b0: number, n: number): string {
  let w = (b2 << 16) | (b1 << 8) | b0;
  let out = '';
  for (let i = 0; i < n; i++) {
    out += ITOA64[w & 0x3f];
    w >>= 6;
  }
  return out;
}

/** `n` bytes of `block` repeated. */
function repeatTo(block: Buffer, n: number): Buffer {
  const out = Buffer.alloc(n);
  for (let i = 0; i < n; i += block.length) block.copy(out, i, 0, Math.min(block.length, n - i));
  return out;
}

/** crypt(3) of `password` with `salt` (at most 16 characters; a `rounds=N$` prefix is honoured). */
export function shaCrypt(password: string, salt: string, algorithm: ShaCryptAlgorithm = 'sha512'): string {
  const h = algorithm;
  const size = h === 'sha512' ? 64 : 32;
  let rounds = 5000;
  let custom = false;
  const m = /^rounds=(\d+)\$(.*)$/.exec(salt);
  if (m) {
    rounds = Math.min(999_999_999, Math.max(1000, Number(m[1])));
    custom = true;
    salt = m[2]!;
  }
  const s = Buffer.from(salt.split('$')[0]!.slice(0, 16));
  const key = Buffer.from(password);
  const b = createHash(h).update(key).update(s).update(key).digest();
  const a = createHash(h).update(key).update(s);
  for (let i = key.length; i > 0; i -= size) a.update(i > size ? b : b.subarray(0, i));
  for (let i = key.length; i > 0; i >>= 1) a.update(i & 1 ? b : key);
  let c = a.digest();
  const dp = createHash(h);
  for (let i = 0; i < key.length; i++) dp.update(key);
  const p = repeatTo(dp.digest(), key.length);
  const ds = createHash(h);
  for (let i = 0; i < 16 + c[0]!; i++) ds.update(s);
  const sBytes = repeatTo(ds.digest(), s.length);
  for (let r = 0; r < rounds; r++) {
    const cr = createHash(h).update(r & 1 ? p : c);
    if (r % 3) cr.update(sBytes);
    if (r % 7) cr.update(p);
    cr.update(r & 1 ? c : p);
    c = cr.digest();
  }
  let out = ORDER[h].map(([x, y, z]) => b64(c[x]!, c[y]!, c[z]!, 4)).join('');
  out += h === 'sha512' ? b64(0, 0, c[63]!, 2) : b64(0, c[31]!, c[30]!, 3);
  return `$${h === 'sha512' ? 6 : 5}$${custom ? `rounds=${rounds}$` : ''}${s.toString()}$${out}`;
}

/** A fresh 16-character salt from crypt's alphabet. */
export function randomSalt(): string {
  return [...randomBytes(16)].map((x) => ITOA64[x & 0x3f]).join('');
}
