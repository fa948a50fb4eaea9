import { copyFileSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import type { CommandRunner } from '@brine/core';
import { which } from '../modules/cmd.js';
import { replaceText } from './text-replace.js';

/**
 * System locales as Salt's locale module handles them on Debian and Ubuntu: `locale -a` for what
 * is built, /usr/share/i18n/SUPPORTED and /etc/locale.gen plus locale-gen to build one, and the
 * system locale through localectl when systemd is the init, else /etc/default/locale.
 */
export interface LocaleHost {
  cmd: CommandRunner;
  /** The minion's `os` grain: Debian and Ubuntu differ in how a locale is generated. */
  os: string;
  /** Where locale.gen and default/locale live (default /etc); tests point it at a temp dir. */
  etc?: string;
  /** Whether systemd is the init (Salt: /run/systemd/system exists). */
  systemd: boolean;
}

export class LocaleError extends Error {}

export interface LocaleParts {
  language: string;
  territory: string;
  codeset: string;
  modifier: string;
  charmap: string;
}

function split2(s: string, ch: string): [string, string] {
  const i = s.indexOf(ch);
  return i < 0 ? [s, ''] : [s.slice(0, i), s.slice(i + 1)];
}

/** `language[_territory][.codeset][@modifier] [charmap]`, as Salt's split_locale. */
export function splitLocale(loc: string): LocaleParts {
  const [a, charmap] = split2(loc, ' ');
  const [b, modifier] = split2(a, '@');
  const [c, codeset] = split2(b, '.');
  const [language, territory] = split2(c, '_');
  return { language, territory, codeset, modifier, charmap };
}

export function joinLocale(p: LocaleParts): string {
  let loc = p.language;
  if (p.territory) loc += `_${p.territory}`;
  if (p.codeset) loc += `.${p.codeset}`;
  if (p.modifier) loc += `@${p.modifier}`;
  if (p.charmap) loc += ` ${p.charmap}`;
  return loc;
}

/** The form `locale -a` prints: de_DE.utf8. */
export function normalizeLocale(loc: string): string {
  const p = splitLocale(loc);
  return joinLocale({ ...p, territory: p.territory.toUpperCase(), codeset: p.codeset.toLowerCase().replace(/-/g, ''), charmap: '' });
}

const etcOf = (h: LocaleHost) => h.etc ?? '/etc';

/** Salt edits these files with file.replace, whose default keeps the file as it was in `<file>.bak`. */
function replaceWithBackup(file: string, after: string): void {
  if (existsSync(file)) copyFileSync(file, `${file}.bak`);
  writeFileSync(file, after);
}

async function output(h: LocaleHost, argv: string[]): Promise<string> {
  const r = await h.cmd.run(argv);
  return [r.stdout, r.stderr].filter(Boolean).join('').replace(/\n+$/, '');
}

export async function listAvail(h: LocaleHost): Promise<string[]> {
  return (await output(h, ['locale', '-a'])).split('\n');
}

export async function avail(h: LocaleHost, locale: string): Promise<boolean> {
  const want = normalizeLocale(locale);
  return (await listAvail(h)).some((x) => normalizeLocale(x.trim()) === want);
}

/** Salt's gen_locale on Debian/Ubuntu: whether locale-gen (or localedef) succeeded. */
export async function genLocale(h: LocaleHost, name: string): Promise<boolean> {
  const ubuntu = h.os === 'Ubuntu';
  const info = splitLocale(name);
  const search = `${info.language}_${info.territory}`;
  let locale = name;
  if (!info.charmap && !ubuntu) {
    info.charmap = info.codeset;
    locale = joinLocale(info);
  }
  let valid: boolean;
  if (h.os === 'Debian') {
    const supported = '/usr/share/i18n/SUPPORTED';
    // Salt searches with the locale as a regex (its dots match any character)
    valid = existsSync(supported) && new RegExp(`^${locale}$`, 'm').test(readFileSync(supported, 'utf8'));
  } else {
    valid = existsSync('/usr/share/i18n/locales') && existsSync(`/usr/share/i18n/locales/${search}`);
  }
  if (!valid) return false;
  const localeGen = `${etcOf(h)}/locale.gen`;
  if (existsSync(localeGen)) {
    const before = readFileSync(localeGen, 'utf8');
    const after = replaceText(before, `^\\s*#\\s*${locale}\\s*$`, `${locale}\n`, { appendIfNotFound: true });
    if (after !== before) replaceWithBackup(localeGen, after);
  }
  let argv: string[];
  if (which('locale-gen')) argv = ['locale-gen', ubuntu ? normalizeLocale(locale) : locale];
  else if (which('localedef')) argv = ['localedef', '--force', '-i', search, '-f', info.codeset, `${search}.${info.codeset}`, '--quiet'];
  else throw new LocaleError('Command "locale-gen" or "localedef" was not found on this system.');
  return (await h.cmd.run(argv)).retcode === 0;
}

/** `localectl` status: its "System Locale" variables (LANG=..., LC_*=...). */
async function localectlLocale(h: LocaleHost): Promise<Record<string, string>> {
  const r = await h.cmd.run(['localectl']);
  if (r.retcode !== 0) throw new LocaleError(`Unable to get locale: ${r.stderr.trim()}`);
  const vars: Record<string, string> = {};
  let inLocale = false;
  for (const line of r.stdout.split('\n')) {
    const m = /^\s*([^:]+):\s*(.*)$/.exec(line);
    const value = m ? m[2]! : line.trim();
    if (m) inLocale = m[1]!.trim() === 'System Locale';
    if (!inLocale) continue;
    const kv = /^(\w+)=(.*)$/.exec(value.trim());
    if (kv) vars[kv[1]!] = kv[2]!;
  }
  return vars;
}

/** The system's LANG. */
export async function getLocale(h: LocaleHost): Promise<string> {
  if (h.systemd) return (await localectlLocale(h)).LANG ?? '';
  const line = await output(h, ['grep', '^LANG=', `${etcOf(h)}/default/locale`]);
  const i = line.indexOf('=');
  return i < 0 ? '' : (line.slice(i + 1).split('=')[0] ?? '').replace(/"/g, '');
}

/** Sets the system's LANG: localectl under systemd, else update-locale and /etc/default/locale. */
export async function setLocale(h: LocaleHost, locale: string): Promise<boolean> {
  if (h.systemd) {
    const vars = { ...(await localectlLocale(h)), LANG: locale };
    return (await h.cmd.run(['localectl', 'set-locale', ...Object.entries(vars).map(([k, v]) => `${k}=${v}`)])).retcode === 0;
  }
  const updateLocale = which('update-locale');
  if (!updateLocale) throw new LocaleError('Cannot set locale: "update-locale" was not found.');
  await h.cmd.run([updateLocale]);
  const file = `${etcOf(h)}/default/locale`;
  const before = existsSync(file) ? readFileSync(file, 'utf8') : '';
  const after = replaceText(before, '^LANG=.*', `LANG="${locale}"`, { appendIfNotFound: true });
  if (after !== before) replaceWithBackup(file, after);
  return true;
}
