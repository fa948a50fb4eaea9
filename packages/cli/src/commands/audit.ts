import { MasterClient, resolveApi } from '@brine/master/client';
import { durationSeconds } from '@brine/core';
import type { AuditRow } from '@brine/master';
import type { Command } from '../command.js';
import { parse, usageError } from './accounts-io.js';

const USAGE = 'brine audit [--user NAME] [--since TIME|1h|2d] [--action job|key|signin|token|user|...] [--limit N] [--json] [--config MASTER_CONFIG]';

/** `--since 2h` (that long ago) or a time the master parses. */
function since(v: string): string {
  const seconds = /^\d+[smhd]$/.test(v) ? durationSeconds(v) : undefined;
  return seconds === undefined ? v : new Date(Date.now() - seconds * 1000).toISOString();
}

/** `brine audit`: who did what, from where and when (jobs, keys, sign-ins, tokens, users), newest first. */
export const auditCommand: Command = {
  name: 'audit',
  summary: 'the audit trail: jobs, key actions, sign-ins, token and user changes',
  usage: USAGE,
  async run(argv, io) {
    const { values, positionals } = parse(
      argv,
      {
        config: { type: 'string', short: 'c' },
        json: { type: 'boolean' },
        user: { type: 'string', short: 'u' },
        since: { type: 'string' },
        action: { type: 'string' },
        limit: { type: 'string' },
      },
      USAGE,
    );
    if (positionals.length) throw usageError(`unexpected '${positionals.join(' ')}'`, USAGE);
    if (values.limit !== undefined && !/^\d+$/.test(values.limit)) throw usageError(`--limit is a number, not '${values.limit}'`, USAGE);
    const q = new URLSearchParams();
    if (values.user) q.set('user', values.user);
    if (values.action) q.set('action', values.action);
    if (values.since) q.set('since', since(values.since));
    if (values.limit) q.set('limit', values.limit);
    const client = new MasterClient(resolveApi(values.config, io.env));
    const { audit } = await client.get<{ audit: AuditRow[] }>(`/v1/audit${q.size ? `?${q}` : ''}`);
    if (values.json) io.stdout(JSON.stringify(audit, null, 2) + '\n');
    else
      io.stdout(
        audit
          .map(
            (a) =>
              `${a.at}  ${a.username.padEnd(12)} ${a.source.padEnd(15)} ${a.action.padEnd(14)} ${(a.target ?? '-').padEnd(12)} ${a.outcome}  ${JSON.stringify(a.args)}\n`,
          )
          .join(''),
      );
    return 0;
  },
};
