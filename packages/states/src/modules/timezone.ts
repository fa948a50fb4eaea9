import type { StateModule, StateReturn } from '@brine/core';
import { getHwclock, setHwclock, setZone, TimezoneError, which, zoneCompare, type TimezoneHost } from '@brine/exec';

/** Salt's `timezone.system`: the zone (/etc/localtime) and whether the hardware clock keeps UTC. */
export interface TimezoneModuleOptions {
  /** Where /etc/timezone and friends live (default /etc). */
  etc?: string;
  /** Whether to use timedatectl (default: whether it is on the PATH, as Salt decides). */
  timedatectl?: boolean;
}

export function timezoneModule(options: TimezoneModuleOptions = {}): StateModule {
  return {
    name: 'timezone',
    available() {
      return process.platform === 'linux' ? { available: true } : { available: false, reason: 'timezone states work on Linux only' };
    },
    functions: {
      system: {
        args: { utc: { type: ['boolean', 'string'] } },
        async run(a, ctx) {
          const name = String(a.name);
          const utc = a.utc === undefined ? true : a.utc;
          const host: TimezoneHost = { cmd: ctx.cmd, etc: options.etc, timedatectl: options.timedatectl ?? which('timedatectl') !== null };
          const ret: StateReturn = { name, result: null, changes: {}, comment: '' };
          let compzone: boolean;
          try {
            compzone = zoneCompare(host, name);
          } catch (e) {
            if (!(e instanceof TimezoneError)) throw e;
            return { ...ret, result: false, comment: `Unable to compare desired timezone '${name}' to system timezone: ${e.message}` };
          }
          const myutc = (await getHwclock(host)) !== 'localtime';
          const messages: string[] = [];
          let doUtc = false;
          if (compzone) {
            ret.result = true;
            messages.push(`Timezone ${name} already set`);
          }
          if (utc && utc !== myutc) {
            ret.result = null;
            doUtc = true;
          } else if (utc && utc === myutc) {
            messages.push(`UTC already set to ${name}`);
          }
          if (ret.result === true) return { ...ret, comment: messages.join(', ') };
          if (ctx.test) {
            const pending: string[] = [];
            if (!compzone) pending.push(`Timezone ${name} needs to be set`);
            if (utc && myutc !== utc) pending.push(`UTC needs to be set to ${pyStr(utc)}`);
            return { ...ret, comment: pending.join(', ') };
          }
          const done: string[] = [];
          if (!compzone) {
            if ((await setZone(host, name)) === true) {
              ret.changes.timezone = name;
              done.push(`Set timezone ${name}`);
              ret.result = true;
            } else {
              done.push('Failed to set timezone');
              ret.result = false;
            }
          }
          if (doUtc) {
            if (await setHwclock(host, utc ? 'UTC' : 'localtime')) {
              ret.changes.utc = utc;
              done.push(`Set UTC to ${pyStr(utc)}`);
              ret.result = true;
            } else {
              done.push(`Failed to set UTC to ${pyStr(utc)}`);
              ret.result = false;
            }
          }
          return { ...ret, comment: done.join(', ') };
        },
      },
    },
  };
}

const pyStr = (v: unknown): string => (v === true ? 'True' : v === false ? 'False' : String(v));
