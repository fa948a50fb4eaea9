import { MasterClient, resolveApi } from '@brine/master/client';
import type { Command } from '../command.js';
import { parse, readPassword, usageError } from './accounts-io.js';

const USAGE = 'brine user add|passwd NAME [--password-stdin] | remove NAME | list [--json] [--config MASTER_CONFIG]';

interface UserRow {
  name: string;
  created_at: string;
  updated_at: string;
}

/**
 * `brine user`: the master's local operators (passwords hashed with scrypt on the master). Their
 * permissions are external_auth.local in the master config; managing users needs @wheel.
 */
export const userCommand: Command = {
  name: 'user',
  summary: "add, change, remove or list the master's local operators",
  usage: USAGE,
  async run(argv, io) {
    const { values, positionals } = parse(
      argv,
      { config: { type: 'string', short: 'c' }, json: { type: 'boolean' }, 'password-stdin': { type: 'boolean' } },
      USAGE,
    );
    const [sub, name, ...rest] = positionals;
    const needsName = sub === 'add' || sub === 'passwd' || sub === 'remove';
    if (!sub || !['add', 'passwd', 'remove', 'list'].includes(sub)) throw usageError(sub ? `unknown action '${sub}'` : 'no action given', USAGE);
    if (rest.length > 0 || (needsName ? !name : name))
      throw usageError(needsName ? `brine user ${sub} takes one NAME` : 'brine user list takes no NAME', USAGE);
    const client = new MasterClient(resolveApi(values.config, io.env));
    if (sub === 'list') {
      const { users } = await client.get<{ users: UserRow[] }>('/v1/users');
      if (values.json) io.stdout(JSON.stringify(users, null, 2) + '\n');
      else io.stdout(users.length ? users.map((u) => `${u.name.padEnd(24)} added ${u.created_at}\n`).join('') : 'no local users\n');
      return 0;
    }
    if (sub === 'remove') {
      await client.post(`/v1/users/${encodeURIComponent(name!)}/remove`);
      io.stdout(`removed ${name} (their tokens are revoked)\n`);
      return 0;
    }
    const password = await readPassword(values['password-stdin'] === true, `password for ${name}: `);
    if (sub === 'add') await client.post('/v1/users', { name, password });
    else await client.post(`/v1/users/${encodeURIComponent(name!)}/password`, { password });
    io.stdout(`${sub === 'add' ? 'added' : 'changed the password of'} ${name}\n`);
    return 0;
  },
};
