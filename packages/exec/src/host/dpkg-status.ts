import { readdirSync, readFileSync } from 'node:fs';

/**
 * The lines `dpkg-query --showformat '${Status} ${Package} ${Version} ${Architecture}\n' -W`
 * prints for installed packages, read from dpkg's status file: the query is a process of ~6 ms
 * of CPU plus its start, and pkg.version asks it for every package. Only where the file alone
 * is the answer: the default admin folder, no pending journal in updates/, one stanza per name
 * (multi-arch names are ordered by dpkg's own rules), no 0: epoch (dpkg prints it without).
 * Otherwise undefined, and dpkg-query answers.
 */
export function dpkgStatusLines(admin = '/var/lib/dpkg'): string[] | undefined {
  if (process.env.DPKG_ADMINDIR !== undefined || process.env.DPKG_ROOT !== undefined || otherAdmin()) return undefined;
  let text: string;
  try {
    if (readdirSync(`${admin}/updates`).some((f) => /^\d+$/.test(f))) return undefined;
    text = readFileSync(`${admin}/status`, 'utf8');
  } catch {
    return undefined;
  }
  const rows: [string, string][] = [];
  const seen = new Set<string>();
  for (const stanza of text.split(/\n\n+/)) {
    if (stanza.trim() === '') continue;
    const pkg = field(stanza, 'Package');
    const status = field(stanza, 'Status');
    if (pkg === undefined || status === undefined || seen.has(pkg)) return undefined;
    seen.add(pkg);
    if (!/^(?:install|hold) \S+ installed$/.test(status)) continue;
    const version = field(stanza, 'Version');
    const arch = field(stanza, 'Architecture');
    if (
      version === undefined ||
      arch === undefined ||
      !PLAIN.test(pkg) ||
      !/^[^\s:]+(?::\S+)?$/.test(version) ||
      version.startsWith('0:') ||
      !/^\S+$/.test(arch)
    ) {
      return undefined;
    }
    rows.push([pkg, `${status} ${pkg} ${version} ${arch}`]);
  }
  // dpkg-query lists by name (strcmp; these names are ASCII)
  return rows.sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0)).map((r) => r[1]);
}

const PLAIN = /^[a-z0-9][a-z0-9.+-]*$/;

/** Whether dpkg's configuration may point it at another database (admindir, root, instdir). */
function otherAdmin(): boolean {
  const files = ['/etc/dpkg/dpkg.cfg'];
  try {
    for (const f of readdirSync('/etc/dpkg/dpkg.cfg.d')) files.push(`/etc/dpkg/dpkg.cfg.d/${f}`);
  } catch {
    // no drop-in folder
  }
  for (const f of files) {
    try {
      if (/^\s*(?:--)?(?:admindir|root|instdir)\b/m.test(readFileSync(f, 'utf8'))) return true;
    } catch {
      // an absent file sets nothing
    }
  }
  return false;
}

/** A field of a stanza (a line `Name: value` at the start of a line), or undefined. */
function field(stanza: string, name: string): string | undefined {
  const at = stanza.startsWith(`${name}:`) ? 0 : stanza.indexOf(`\n${name}:`) + 1;
  if (at === 0 && !stanza.startsWith(`${name}:`)) return undefined;
  const end = stanza.indexOf('\n', at);
  return stanza.slice(at + name.length + 1, end < 0 ? undefined : end).trim();
}
