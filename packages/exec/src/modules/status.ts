import { readFileSync } from 'node:fs';
import os from 'node:os';
import { execErrors } from '../errors.js';
import type { ExecFunction } from '../function.js';

/** Salt's status module: what /proc says about load and uptime. */
export const statusFunctions: ExecFunction[] = [
  {
    name: 'status.loadavg',
    doc: 'The load averages: {1-min, 5-min, 15-min}.',
    params: [],
    run: () => {
      const [a, b, c] = os.loadavg();
      return { return: { '1-min': a, '5-min': b, '15-min': c } };
    },
  },
  {
    name: 'status.uptime',
    doc: 'Uptime: seconds, since_iso, since_t, days, time (H:MM) and users logged in.',
    params: [],
    run: async (_a, ctx) => {
      let secs: number;
      try {
        secs = Number(readFileSync('/proc/uptime', 'utf8').split(' ')[0]);
      } catch (e) {
        throw execErrors.make('BRINE_ERR_EXEC_FAILED', { fun: 'status.uptime', detail: (e as Error).message });
      }
      const seconds = Math.trunc(secs);
      const sinceF = Date.now() / 1000 - secs;
      const sinceT = Math.trunc(sinceF);
      // Python's datetime.fromtimestamp(...).isoformat(): local time, microseconds when not zero
      const since = new Date(sinceT * 1000);
      const p = (n: number) => String(n).padStart(2, '0');
      const micros = Math.round((sinceF - sinceT) * 1e6);
      const sinceIso = `${since.getFullYear()}-${p(since.getMonth() + 1)}-${p(since.getDate())}T${p(since.getHours())}:${p(since.getMinutes())}:${p(since.getSeconds())}${micros ? '.' + String(micros).padStart(6, '0') : ''}`;
      const days = Math.trunc(seconds / 86400);
      const rest = seconds % 86400;
      const who = await ctx.cmd.run(['who', '-s']);
      // Salt counts the lines of `who -s` output by splitting it, so no one logged in still reads as 1
      const users = who.stdout.split('\n').length;
      return {
        return: { seconds, since_iso: sinceIso, since_t: sinceT, days, time: `${Math.trunc(rest / 3600)}:${p(Math.trunc((rest % 3600) / 60))}`, users },
      };
    },
  },
];
