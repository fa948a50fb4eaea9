import { execErrors } from '../errors.js';
import type { ExecContext, ExecFunction } from '../function.js';
import { getHwclock, getZone, setHwclock, setZone, TimezoneError, zoneCompare, type TimezoneHost } from '../host/timezone.js';
import { which } from './cmd.js';

/** Salt's timezone execution module (Debian paths; see host/timezone.ts). */
const host = (ctx: ExecContext): TimezoneHost => ({ cmd: ctx.cmd, timedatectl: which('timedatectl') !== null });

async function call<T>(fun: string, f: () => Promise<T> | T): Promise<{ return: T }> {
  try {
    return { return: await f() };
  } catch (e) {
    if (e instanceof TimezoneError) throw execErrors.make('BRINE_ERR_EXEC_FAILED', { fun, detail: e.message });
    throw e;
  }
}

export const timezoneFunctions: ExecFunction[] = [
  {
    name: 'timezone.get_zone',
    doc: 'The current time zone, e.g. America/Denver.',
    params: [],
    run: (_a, ctx) => call('timezone.get_zone', () => getZone(host(ctx))),
  },
  {
    name: 'timezone.zone_compare',
    doc: 'Whether /etc/localtime holds the named zone (compares the zone files byte for byte).',
    params: [{ name: 'timezone', type: 'string', required: true }],
    run: (a, ctx) => call('timezone.zone_compare', () => zoneCompare(host(ctx), String(a.timezone))),
  },
  {
    name: 'timezone.get_hwclock',
    doc: 'The hardware clock setting: UTC or localtime.',
    params: [],
    run: (_a, ctx) => call('timezone.get_hwclock', () => getHwclock(host(ctx))),
  },
  {
    name: 'timezone.set_zone',
    doc: 'Links /etc/localtime to the zone and writes /etc/timezone (timedatectl where installed).',
    params: [{ name: 'timezone', type: 'string', required: true }],
    run: (a, ctx) => call('timezone.set_zone', () => setZone(host(ctx), String(a.timezone))),
  },
  {
    name: 'timezone.set_hwclock',
    doc: 'Sets the hardware clock to UTC or localtime.',
    params: [{ name: 'clock', type: 'string', required: true }],
    run: (a, ctx) => call('timezone.set_hwclock', () => setHwclock(host(ctx), String(a.clock))),
  },
];
