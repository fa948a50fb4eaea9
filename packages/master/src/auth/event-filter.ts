import type { BusEvent } from '../event-bus.js';

/**
 * Which bus events a user without `@jobs` may watch: those of jobs whose every targeted minion
 * they may see (as `GET /v1/jobs/:jid` decides), and those of minions they may see. Everything
 * else (keys, auth, other teams' jobs, the reactor) stays with `@jobs`. A job's verdict is kept
 * per stream, so a fleet's returns cost one look-up.
 */
export function eventFilter(
  sees: (minion: string) => Promise<boolean>,
  expectedOf: (jid: string) => Promise<string[] | undefined>,
): (ev: BusEvent) => Promise<boolean> {
  const jobs = new Map<string, Promise<boolean>>();
  const jobVisible = async (jid: string): Promise<boolean> => {
    const expected = await expectedOf(jid);
    if (!expected?.length) return false;
    for (const m of expected) if (!(await sees(m))) return false;
    return true;
  };
  return async (ev) => {
    const job = /^brine\/job\/(\d+)\//.exec(ev.tag);
    if (job) {
      const jid = job[1]!;
      let v = jobs.get(jid);
      if (!v) {
        v = jobVisible(jid);
        jobs.set(jid, v);
      }
      return v;
    }
    const minion = /^brine\/minion\/([^/]+)\//.exec(ev.tag);
    return minion ? sees(minion[1]!) : false;
  };
}
