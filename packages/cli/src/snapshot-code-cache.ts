// Node's startup-snapshot blob ends with a code cache of every one of Node's own modules (about
// 4 MB of its 10.7). Node reads the whole file at every start, but a restored `brine local` loads
// no built-in module the snapshot does not already hold, so it never uses that cache; a module
// loaded later still works without it (compiled from its source). scripts/snapshot.mjs drops it.
// Layout (node's src/node_snapshotable.cc, SnapshotData::ToBlob): ... env_info, then the code
// cache as its last field: a count (64-bit), then per module its id (64-bit length, bytes) and
// its cache (64-bit length, bytes). It is found as the one place where such a list of module ids
// ends exactly at the end of the file; a blob not of that shape is left as it is.

/** Where the code cache list starts and how many modules it holds, or undefined. */
export function codeCacheOf(blob: Buffer): { at: number; count: number } | undefined {
  // the list lies after the V8 heap data (megabytes): it is looked for from the end
  for (let at = blob.length - 8; at >= 0; at--) {
    const count = listAt(blob, at);
    if (count !== undefined) return { at, count };
  }
  return undefined;
}

const ID = /^[a-z0-9_/.-]+\0?$/i;

/** A little-endian 64-bit length at `p` if below 2^32, else -1. */
function u64(blob: Buffer, p: number): number {
  return blob.readUInt32LE(p + 4) === 0 ? blob.readUInt32LE(p) : -1;
}

/** The number of entries of a code cache list at `at` that ends exactly at the end, or undefined. */
function listAt(blob: Buffer, at: number): number | undefined {
  const count = u64(blob, at);
  if (count < 0 || count > 10000) return undefined;
  let p = at + 8;
  for (let i = 0; i < count; i++) {
    if (p + 8 > blob.length) return undefined;
    const idLength = u64(blob, p);
    if (idLength < 1 || idLength > 256 || p + 8 + idLength > blob.length) return undefined;
    if (!ID.test(blob.toString('latin1', p + 8, p + 8 + idLength))) return undefined;
    p += 8 + idLength;
    if (p + 8 > blob.length) return undefined;
    const length = u64(blob, p);
    if (length < 0 || length > blob.length - p - 8) return undefined;
    p += 8 + length;
  }
  // an empty list only counts at the very end (else any 8 zero bytes before the end would do)
  return p === blob.length && (count > 0 || at === blob.length - 8) ? count : undefined;
}

/** The blob without its code cache (an empty list in its place), or undefined when not found. */
export function withoutCodeCache(blob: Buffer): Buffer | undefined {
  const found = codeCacheOf(blob);
  if (!found) return undefined;
  const out = Buffer.alloc(found.at + 8);
  blob.copy(out, 0, 0, found.at);
  return out;
}
