import { MinionAgent, type AgentOptions } from './agent.js';
import type { MinionConfig } from './config.js';
import type { SpooledReturn } from './spool.js';

/** What `brine call` ran: the job's jid on the master, its return, and whether the master stored it. */
export interface CallOutcome {
  jid: string;
  ret: SpooledReturn;
  /** The master acknowledged the return (and the state results before it). */
  stored: boolean;
}

/** How long the return's acknowledgement is waited for once the function has run. */
const ACK_WAIT_MS = 30_000;

/**
 * Salt's salt-call: runs one function on this host with the master's state tree, pillar and file
 * server, as this minion. It connects with the minion's own key beside the minion's daemon
 * (the master keeps both sessions), has the master record a job for it (`job.new`), runs it here
 * (compile, files and host calls through the master like any job), and streams the state results
 * and the return to the master to be stored. Rejects with the coded cause when the master cannot
 * be reached, does not accept the key, or is lost before the function returned.
 */
export async function runCall(config: MinionConfig, opts: AgentOptions, fun: string, arg: unknown[], kwarg: Record<string, unknown>): Promise<CallOutcome> {
  const agent = new MinionAgent(config, { ...opts, call: true });
  let failed: (e: unknown) => void = () => {};
  const fatal = new Promise<never>((_, reject) => (failed = reject));
  fatal.catch(() => {});
  agent.once('fatal', (e: unknown) => failed(e));
  try {
    agent.start();
    await Promise.race([new Promise((resolve) => agent.once('ready', resolve)), fatal]);
    const { jid } = (await Promise.race([agent.request('job.new', { fun, arg, kwarg }), fatal])) as { jid: string };
    const acked = new Promise<boolean>((resolve) => {
      const timer = setTimeout(() => resolve(false), ACK_WAIT_MS);
      agent.on('acked', (j: string) => {
        if (j !== jid) return;
        clearTimeout(timer);
        resolve(true);
      });
      fatal.catch(() => {
        clearTimeout(timer);
        resolve(false);
      });
    });
    const returned = new Promise<SpooledReturn>((resolve) => agent.on('return', (r: SpooledReturn) => r.jid === jid && resolve(r)));
    agent.runJob({ jid, fun, arg, kwarg });
    const ret = await Promise.race([returned, fatal]);
    return { jid, ret, stored: await acked };
  } finally {
    await agent.stop();
  }
}
