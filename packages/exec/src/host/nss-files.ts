import { existsSync, readFileSync } from 'node:fs';

/**
 * When NSS answers from the /etc files alone, what getent would print is read from them: a
 * `getent` process costs ~5 ms of CPU per user.info (Salt asks NSS in-process). Anything this
 * cannot vouch for sends the caller back to getent, so LDAP/sssd/userdb accounts still count.
 */
export type NssDb = 'passwd' | 'group';

// Where nss-systemd finds accounts besides the files (userdb services and drop-ins, DynamicUser=).
const SYSTEMD_SOURCES = [
  '/run/systemd/userdb',
  '/run/systemd/dynamic-uid',
  '/etc/userdb',
  '/run/userdb',
  '/run/host/userdb',
  '/usr/local/lib/userdb',
  '/usr/lib/userdb',
];
// names nss-systemd makes up when the files lack them
const SYSTEMD_SYNTHESIZED = /^(?:root|nobody|nogroup|foreign-.*)$/;

// One strict line each; a line glibc could read otherwise (spaces, empty members, +/- compat
// entries) makes the whole file getent's business.
const LINE: Record<NssDb, RegExp> = {
  passwd: /^[A-Za-z0-9_][A-Za-z0-9_.-]*\$?:[^:]*:\d{1,10}:\d{1,10}:[^:]*:[^:\s]*:[^:\s]*$/,
  group: /^[A-Za-z0-9_][A-Za-z0-9_.-]*\$?:[^:\s]*:\d{1,10}:(?:[A-Za-z0-9_][A-Za-z0-9_.$-]*(?:,[A-Za-z0-9_][A-Za-z0-9_.$-]*)*)?$/,
};

/** The NSS sources of `db` (nsswitch.conf), or undefined when the line has actions or is absent. */
function sources(db: NssDb, etc: string): string[] | undefined {
  let conf: string;
  try {
    conf = readFileSync(`${etc}/nsswitch.conf`, 'utf8');
  } catch {
    return undefined;
  }
  let found: string[] | undefined;
  for (const raw of conf.split('\n')) {
    const line = raw.replace(/#.*/, '').trim();
    const m = /^(\w+)\s*:\s*(.*)$/.exec(line);
    if (m?.[1] !== db) continue;
    if (m[2].includes('[')) return undefined;
    found = m[2].split(/\s+/).filter(Boolean);
  }
  return found;
}

/**
 * The lines of `${etc}/${db}` when NSS answers `db` from that file alone, as far as this host
 * shows: `files` first, then at most `systemd` with none of its sources present. `lookup`: a
 * name or id absent from the file is absent (else only enumeration, which `files` alone gives).
 */
export function nssFileLines(db: NssDb, lookup: boolean, etc = '/etc'): string[][] | undefined {
  const src = sources(db, etc);
  if (!src || src[0] !== 'files') return undefined;
  const rest = src.slice(1);
  if (rest.length > (lookup ? 1 : 0) || (rest.length === 1 && (rest[0] !== 'systemd' || SYSTEMD_SOURCES.some((p) => existsSync(p))))) {
    return undefined;
  }
  let text: string;
  try {
    text = readFileSync(`${etc}/${db}`, 'utf8');
  } catch {
    return undefined;
  }
  const out: string[][] = [];
  for (const line of text.split('\n')) {
    if (line === '' || line[0] === '#') continue;
    if (!LINE[db].test(line)) return undefined;
    out.push(line.split(':'));
  }
  return out;
}

/**
 * getent's lines for `key` (a name, or a number as an id) from the files, or undefined when
 * getent must answer. Numeric keys are ids, as getent's strtoul test makes them.
 */
export function nssFileAnswer(db: NssDb, key: string | number | undefined, etc = '/etc'): string[][] | undefined {
  if (key === undefined) return nssFileLines(db, false, etc);
  const k = String(key);
  const byId = /^\d{1,9}$/.test(k);
  if (!byId && !/^[A-Za-z_][A-Za-z0-9_.-]*\$?$/.test(k)) return undefined;
  const lines = nssFileLines(db, true, etc);
  if (!lines) return undefined;
  const hit = lines.find((f) => (byId ? Number(f[2]) === Number(k) : f[0] === k));
  if (hit) return [hit];
  // absent from the files: systemd may still make it up
  if (byId || SYSTEMD_SYNTHESIZED.test(k)) return sources(db, etc)?.length === 1 ? [] : undefined;
  return [];
}
