import type { MinionFunction } from './exec-function.js';

/** The saltutil functions that look at this minion's own jobs (the plain ones live in @brine/exec). */
export const MINION_JOB_FUNCTIONS: MinionFunction[] = [
  {
    name: 'saltutil.running',
    doc: 'Jobs running on this minion right now.',
    params: [],
    run: (_a, ctx) => ({ return: ctx.running().filter((j) => j.jid !== ctx.jid) }),
  },
  {
    name: 'saltutil.kill_job',
    doc: 'Stops a running job by jid.',
    params: [{ name: 'jid', type: ['string', 'number'], required: true }],
    run: (a, ctx) => {
      const jid = String(a.jid);
      if (ctx.kill(jid)) return { return: `Signal 15 sent to job ${jid}` };
      return { return: `No job ${jid} is running on this minion`, retcode: 1 };
    },
  },
];
