import { createHash } from 'node:crypto';
import { basename, isAbsolute } from 'node:path';
import { asBool } from '../../util/args.js';
import { readFile } from '../../util/sync-fs.js';

/**
 * file.managed from http(s):// and ftp:// sources as Salt 3007 does it (modules/file.py
 * get_managed, get_source_sum, extract_hash, manage_file): the download must be vouched for by
 * `source_hash` (a hash, `type=hash`, or the path/URL of a hash file) unless `skip_verify`, and
 * a real run refuses a download whose hash differs (test mode predicts without checking, as Salt).
 * A target that already has the hash's contents is not downloaded at all.
 */

const HASHES: Record<string, number> = { md5: 32, sha1: 40, sha224: 56, sha256: 64, sha384: 96, sha512: 128 };
const BY_LENGTH: Record<number, string> = Object.fromEntries(Object.entries(HASHES).map(([k, v]) => [v, k]));

export interface SourceSum {
  hash_type: string;
  hsum: string;
}

export function isRemote(src: string): boolean {
  return /^(https?|ftp):\/\//i.test(src);
}

class SourceError extends Error {}

function invalidFormat(sourceHash: string): SourceError {
  const lengths = Object.keys(BY_LENGTH)
    .map(Number)
    .sort((a, b) => a - b)
    .map((n) => `${BY_LENGTH[n]} (${n})`)
    .join(', ');
  return new SourceError(
    `Source hash ${sourceHash} format is invalid. The supported formats are: 1) a hash, 2) an expression in the format <hash_type>=<hash>, or ` +
      '3) either a path to a local file containing hashes, or a URI of a remote hash file. Supported protocols for remote hash files ' +
      `are: salt, file, http, https, ftp, swift, s3. The hash may also not be of a valid length, the following are supported hash types and lengths: ${lengths}.`,
  );
}

/** Socket and resolver failures by Node's code, in the words Python's socket errors print on glibc. */
const PY_SOCKET_ERRORS: Record<string, string> = {
  ENOTFOUND: '[Errno -2] Name or service not known',
  EAI_AGAIN: '[Errno -3] Temporary failure in name resolution',
  ECONNREFUSED: '[Errno 111] Connection refused',
  ECONNRESET: '[Errno 104] Connection reset by peer',
  EHOSTUNREACH: '[Errno 113] No route to host',
  ENETUNREACH: '[Errno 101] Network is unreachable',
};

/** GETs a URL; a failure reads as Salt's fileclient words it. */
export async function download(url: string): Promise<Buffer> {
  let res: Response;
  try {
    res = await fetch(url, { redirect: 'follow' });
  } catch (e) {
    const c = (e as { cause?: { message?: string; code?: string } }).cause;
    const cause = (c?.code ? PY_SOCKET_ERRORS[c.code] : undefined) ?? c?.message ?? (e as Error).message;
    throw new Error(`Error: ${cause} reading ${new URL(url).pathname}`);
  }
  if (!res.ok) throw new Error(`Error: HTTP ${res.status}: ${res.statusText} reading ${new URL(url).pathname}`);
  return Buffer.from(await res.arrayBuffer());
}

/** Whether a hash-file line names `name` at its end (after whitespace or a path separator) or at its start. */
function lineNames(line: string, name: string, separators: RegExp): boolean {
  if (!name) return false;
  if (line.endsWith(name)) return line.length > name.length && separators.test(line[line.length - name.length - 1]!);
  return line.startsWith(name) && /\s/.test(line[name.length] ?? '');
}

/** Salt's extract_hash: the hash on the line naming the file (source_hash_name, the target, the source), else the first hash. */
export function extractHash(text: string, fileName: string, source: string, sourceHashName?: string): SourceSum | undefined {
  const seps = /[\s\\/*]/;
  const targets = [sourceHashName ?? '', basename(fileName), basename(new URL(source).pathname)];
  const found: Array<SourceSum | undefined> = [undefined, undefined, undefined];
  let first: SourceSum | undefined;
  for (const raw of text.split('\n')) {
    const line = raw.trim();
    const m = /(?<![a-z0-9])([a-f0-9]{32,128})(?![a-z0-9])/i.exec(line);
    const type = m ? BY_LENGTH[m[1]!.length] : undefined;
    if (!m || !type) continue;
    const sum = { hash_type: type, hsum: m[1]!.toLowerCase() };
    first ??= sum;
    targets.forEach((t, i) => {
      if (!found[i] && lineNames(line, t, i === 0 ? /\s/ : seps)) found[i] = sum;
    });
  }
  return found.find(Boolean) ?? first;
}

/** Salt's get_source_sum: what `source_hash` says the download must hash to. */
async function sourceSum(sourceHash: string, name: string, source: string, sourceHashName?: string): Promise<SourceSum> {
  let hashFile: Buffer | undefined;
  if (isAbsolute(sourceHash)) hashFile = await readFile(sourceHash);
  else if (/^(https?|ftp):\/\//i.test(sourceHash)) hashFile = await download(sourceHash);
  else if (/^[a-z][a-z0-9+.-]*:\/\//i.test(sourceHash)) throw invalidFormat(sourceHash);
  if (hashFile) {
    const sum = extractHash(hashFile.toString('utf8'), name, source, sourceHashName);
    if (!sum) throw invalidFormat(sourceHash);
    return sum;
  }
  const eq = sourceHash.indexOf('=');
  const [type, hsum] = eq >= 0 ? [sourceHash.slice(0, eq).trim(), sourceHash.slice(eq + 1).trim()] : [BY_LENGTH[sourceHash.length], sourceHash];
  if (!/^[0-9a-f]+$/i.test(hsum) || !type) throw invalidFormat(sourceHash);
  if (!(type in HASHES)) {
    throw new SourceError(
      `Invalid hash type '${type}'. Supported hash types are: ${Object.keys(HASHES).join(', ')}. Either remove the hash type and simply use '${hsum}' as the source_hash, or change the hash type to a supported type.`,
    );
  }
  if (!BY_LENGTH[hsum.length]) throw invalidFormat(sourceHash);
  if (hsum.length !== HASHES[type]) {
    throw new SourceError(
      `Invalid length (${hsum.length}) for hash type '${type}'. Either remove the hash type and simply use '${hsum}' as the source_hash, or change the hash type to '${BY_LENGTH[hsum.length]}'`,
    );
  }
  return { hash_type: type, hsum: hsum.toLowerCase() };
}

/** The sum each downloaded body must have, checked once the run knows whether the target exists. */
const expected = new WeakMap<Buffer, { sum: SourceSum; source: string }>();

/**
 * The bytes of a remote source, or Salt's comment for why there are none. `inList`: a source that
 * cannot be fetched lets the next one of the list be tried (undefined), as Salt's source_list does.
 */
export async function fetchRemote(src: string, args: Record<string, unknown>, name: string, inList: boolean): Promise<Buffer | undefined | { error: string }> {
  let sum: SourceSum | undefined;
  if (!asBool(args.skip_verify)) {
    if (typeof args.source_hash !== 'string' || !args.source_hash) {
      return { error: `Unable to verify upstream hash of source file ${src}, please set source_hash or set skip_verify to True` };
    }
    try {
      sum = await sourceSum(args.source_hash, name, src, typeof args.source_hash_name === 'string' ? args.source_hash_name : undefined);
    } catch (e) {
      return { error: e instanceof SourceError ? e.message : `Unable to manage file: ${(e as Error).message}` };
    }
  }
  let body: Buffer;
  try {
    body = await download(src);
  } catch (e) {
    return inList ? undefined : { error: `Failed to cache ${src}: ${(e as Error).message}` };
  }
  if (sum) expected.set(body, { sum, source: src });
  return body;
}

/** A real run's check of a downloaded body: Salt's comment when it does not hash as source_hash says. */
export function remoteMismatch(body: Buffer | undefined, name: string, exists: boolean): string | undefined {
  const want = body && expected.get(body);
  if (!want) return undefined;
  const got = createHash(want.sum.hash_type).update(body).digest('hex');
  if (got === want.sum.hsum) return undefined;
  const { hash_type: type, hsum } = want.sum;
  if (!exists) return `Specified ${type} checksum for ${name} (${hsum}) does not match actual checksum (${got})`;
  return (
    `Specified ${type} checksum for ${want.source} (${hsum}) does not match actual checksum (${got}). If the 'source_hash' value ` +
    "refers to a remote file with multiple possible matches, then it may be necessary to set 'source_hash_name'."
  );
}

/**
 * Salt's shortcut before any download: an existing target whose bytes already hash as the remote
 * source's source_hash is kept as it is (its owner and mode still managed). Errors only skip it.
 */
export async function remoteAlreadyThere(args: Record<string, unknown>, name: string): Promise<boolean> {
  const first = Array.isArray(args.source) ? args.source[0] : args.source;
  if (typeof first !== 'string' || !isRemote(first) || args.contents != null || args.template || asBool(args.skip_verify)) return false;
  if (typeof args.source_hash !== 'string' || !args.source_hash || args.replace === false) return false;
  try {
    const sum = await sourceSum(args.source_hash, name, first, typeof args.source_hash_name === 'string' ? args.source_hash_name : undefined);
    const old = await readFile(name);
    return createHash(sum.hash_type).update(old).digest('hex') === sum.hsum;
  } catch {
    return false;
  }
}
