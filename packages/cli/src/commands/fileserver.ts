import { parseArgs } from 'node:util';
import { MasterClient, resolveApi } from '@brine/master/client';
import type { Command } from '../command.js';
import { cliErrors } from '../errors.js';
import { fromParseError } from '../parse-errors.js';

const USAGE = 'brine fileserver update|status [--json] [--config MASTER_CONFIG]';

interface Remote {
  kind: string;
  name: string;
  url: string;
  ok: boolean;
  error?: string;
  lastFetch?: string;
  lastGood?: string;
  envs: Record<string, string>;
}

/** One remote in a few lines: its state, then the commit of each saltenv. */
function describe(r: Remote): string {
  const head = `${r.kind} ${r.name} (${r.url}): ${r.ok ? 'ok' : `FAILING, serving its last good commits${r.lastGood ? ` (fetched ${r.lastGood})` : ''}`}\n`;
  const why = r.ok || !r.error ? '' : `  ${r.error}\n`;
  const envs = Object.entries(r.envs).map(([env, c]) => `  ${env.padEnd(16)} ${c.slice(0, 12)}\n`);
  return head + why + envs.join('');
}

/**
 * `brine fileserver update`: the master fetches its git remotes (gitfs, git_pillar) now, as Salt's
 * `salt-run fileserver.update`; `status`: the commit each saltenv is served from, and which
 * remotes fail to fetch. Exits 1 when a remote is failing.
 */
export const fileserverCommand: Command = {
  name: 'fileserver',
  summary: "fetch the master's git remotes now (update), or show what they serve (status)",
  usage: USAGE,
  async run(argv, io) {
    let parsed;
    try {
      parsed = parseArgs({ args: argv, allowPositionals: true, options: { config: { type: 'string', short: 'c' }, json: { type: 'boolean' } } });
    } catch (e) {
      throw fromParseError(e, USAGE);
    }
    const { values, positionals } = parsed;
    const sub = positionals[0];
    if ((sub !== 'update' && sub !== 'status') || positionals.length !== 1) {
      throw cliErrors.make('BRINE_ERR_CLI_USAGE', { detail: sub ? `unknown action '${positionals.join(' ')}'` : 'no action given', usage: USAGE });
    }
    const client = new MasterClient(resolveApi(values.config, io.env));
    const r =
      sub === 'update' ? await client.post<{ remotes: Remote[] }>('/v1/fileserver/update') : await client.get<{ remotes: Remote[] }>('/v1/fileserver/status');
    if (values.json) io.stdout(JSON.stringify(r, null, 2) + '\n');
    else if (r.remotes.length === 0) io.stdout('no git remotes configured (fileserver_backend, ext_pillar git)\n');
    else io.stdout(r.remotes.map(describe).join(''));
    return r.remotes.every((x) => x.ok) ? 0 : 1;
  },
};
