import { existsSync } from 'node:fs';
import { collectGrains, type StateContext, type StateModule, type StateReturn } from '@brine/core';
import { avail, genLocale, getLocale, LocaleError, setLocale, type LocaleHost } from '@brine/exec';

/** Salt's `locale.present` (build a locale) and `locale.system` (the system's LANG). */
export interface LocaleModuleOptions {
  /** Where locale.gen and default/locale live (default /etc). */
  etc?: string;
  /** Whether systemd is the init (default: /run/systemd/system exists, as Salt decides). */
  systemd?: boolean;
}

export function localeModule(options: LocaleModuleOptions = {}): StateModule {
  const host = (ctx: StateContext): LocaleHost => {
    const grains = ctx.templateContext?.grains as Record<string, unknown> | undefined;
    const os = String(grains?.os ?? collectGrains('localhost').os ?? '');
    return { cmd: ctx.cmd, os, etc: options.etc, systemd: options.systemd ?? existsSync('/run/systemd/system') };
  };
  return {
    name: 'locale',
    available() {
      return process.platform === 'linux' ? { available: true } : { available: false, reason: 'locale states work on Linux only' };
    },
    functions: {
      present: {
        args: {},
        async run(a, ctx) {
          const name = String(a.name);
          const ret: StateReturn = { name, result: null, changes: {}, comment: '' };
          const h = host(ctx);
          if (await avail(h, name)) return { ...ret, result: true, comment: `Locale ${name} is already present` };
          if (ctx.test) return { ...ret, comment: `Locale ${name} needs to be generated` };
          if (await genLocale(h, name)) return { ...ret, result: true, changes: { locale: name }, comment: `Generated locale ${name}` };
          return { ...ret, result: false, comment: `Failed to generate locale ${name}` };
        },
      },
      system: {
        args: {},
        async run(a, ctx) {
          const name = String(a.name);
          const ret: StateReturn = { name, result: null, changes: {}, comment: '' };
          const h = host(ctx);
          try {
            if ((await getLocale(h)) === name) return { ...ret, result: true, comment: `System locale ${name} already set` };
            if (ctx.test) return { ...ret, comment: `System locale ${name} needs to be set` };
            if (await setLocale(h, name)) return { ...ret, result: true, changes: { locale: name }, comment: `Set system locale ${name}` };
            return { ...ret, result: false, comment: `Failed to set system locale to ${name}` };
          } catch (e) {
            if (!(e instanceof LocaleError)) throw e;
            return { ...ret, result: false, comment: `Failed to set system locale: ${e.message}` };
          }
        },
      },
    },
  };
}
