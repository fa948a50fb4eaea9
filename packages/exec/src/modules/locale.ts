import { existsSync } from 'node:fs';
import { execErrors } from '../errors.js';
import type { ExecContext, ExecFunction } from '../function.js';
import { avail, genLocale, getLocale, listAvail, LocaleError, setLocale, type LocaleHost } from '../host/locale.js';

/** Salt's locale execution module (Debian and Ubuntu; see host/locale.ts). */
const host = (ctx: ExecContext): LocaleHost => ({ cmd: ctx.cmd, os: String(ctx.grains.os ?? ''), systemd: existsSync('/run/systemd/system') });

async function call<T>(fun: string, f: () => Promise<T>): Promise<{ return: T }> {
  try {
    return { return: await f() };
  } catch (e) {
    if (e instanceof LocaleError) throw execErrors.make('BRINE_ERR_EXEC_FAILED', { fun, detail: e.message });
    throw e;
  }
}

const locale = [{ name: 'locale', type: 'string' as const, required: true }];

export const localeFunctions: ExecFunction[] = [
  {
    name: 'locale.list_avail',
    doc: 'The locales built on this host (`locale -a`).',
    params: [],
    run: (_a, ctx) => call('locale.list_avail', () => listAvail(host(ctx))),
  },
  {
    name: 'locale.avail',
    doc: 'Whether the locale is built (compared in the form `locale -a` prints).',
    params: locale,
    run: (a, ctx) => call('locale.avail', () => avail(host(ctx), String(a.locale))),
  },
  {
    name: 'locale.gen_locale',
    doc: 'Enables the locale in /etc/locale.gen and runs locale-gen.',
    params: locale,
    run: (a, ctx) => call('locale.gen_locale', () => genLocale(host(ctx), String(a.locale))),
  },
  {
    name: 'locale.get_locale',
    doc: "The system's LANG (localectl under systemd, else /etc/default/locale).",
    params: [],
    run: (_a, ctx) => call('locale.get_locale', () => getLocale(host(ctx))),
  },
  {
    name: 'locale.set_locale',
    doc: "Sets the system's LANG.",
    params: locale,
    run: (a, ctx) => call('locale.set_locale', () => setLocale(host(ctx), String(a.locale))),
  },
];
