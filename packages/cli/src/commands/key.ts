import { createInterface } from 'node:readline/promises';
import { parseArgs } from 'node:util';
import { globMatch } from '@brine/core';
import { MasterClient, resolveApi } from '@brine/master/client';
import type { Command } from '../command.js';

interface KeyList {
  accepted: string[];
  pending: string[];
  rejected: string[];
  denied: string[];
}

interface Change {
  minion: string;
  from: string;
  to: string;
}

/** `brine key`: salt-key. */
export const keyCommand: Command = {
  name: 'key',
  summary: 'manage minion keys: list, accept, reject, delete, finger',
  usage:
    'brine key list|accept|reject|delete|finger [ID_GLOB|--all] [--yes] [--include-rejected] [--include-accepted] [--include-denied] [--out text|json] [--config MASTER_CONFIG]',
  async run(argv, io) {
    const { values, positionals } = parseArgs({
      args: argv,
      allowPositionals: true,
      options: {
        config: { type: 'string', short: 'c' },
        all: { type: 'boolean', short: 'A' },
        yes: { type: 'boolean', short: 'y' },
        'include-rejected': { type: 'boolean' },
        'include-accepted': { type: 'boolean' },
        'include-denied': { type: 'boolean' },
        out: { type: 'string', default: 'text' },
      },
    });
    const [action = 'list', match] = positionals;
    const client = new MasterClient(resolveApi(values.config, io.env));
    if (action === 'list') {
      const keys = await client.get<KeyList>('/v1/keys');
      if (values.out === 'json') {
        io.stdout(JSON.stringify({ accepted: keys.accepted, pending: keys.pending, rejected: keys.rejected, denied: keys.denied }, null, 2) + '\n');
        return 0;
      }
      const section = (title: string, ids: string[]) => io.stdout(`${title}:\n${ids.map((i) => i + '\n').join('')}`);
      section('Accepted Keys', keys.accepted);
      section('Denied Keys', keys.denied);
      section('Unaccepted Keys', keys.pending);
      section('Rejected Keys', keys.rejected);
      return 0;
    }
    if (action === 'finger') {
      const f = await client.get<{ master: string; keys: Array<{ minion: string; state: string; fingerprint: string }> }>('/v1/keys/finger');
      if (values.out === 'json') {
        io.stdout(JSON.stringify(f, null, 2) + '\n');
        return 0;
      }
      io.stdout(`Local Keys:\nmaster.crt:  ${f.master}\n`);
      for (const k of f.keys) {
        if (match && !globMatch(k.minion, match)) continue;
        io.stdout(`${k.state}:\n${k.minion}:  ${k.fingerprint}\n`);
      }
      return 0;
    }
    if (action !== 'accept' && action !== 'reject' && action !== 'delete') {
      io.stderr(`brine key: unknown action '${action}'\nusage: ${this.usage}\n`);
      return 2;
    }
    if (!match && !values.all) {
      io.stderr(`brine key ${action}: name a minion id (glob) or --all\n`);
      return 2;
    }
    if (!values.yes && process.stdin.isTTY) {
      const rl = createInterface({ input: process.stdin, output: process.stderr });
      const answer = await rl.question(`${action} ${values.all ? 'all matching keys' : `keys matching '${match}'`}? [n/Y] `);
      rl.close();
      if (answer.trim() !== '' && !/^y(es)?$/i.test(answer.trim())) return 1;
    }
    const body = {
      ...(values.all ? { all: true } : { match }),
      ...(values['include-rejected'] ? { include_rejected: true } : {}),
      ...(values['include-accepted'] ? { include_accepted: true } : {}),
      ...(values['include-denied'] ? { include_denied: true } : {}),
    };
    const { changed } = await client.post<{ changed: Change[] }>(`/v1/keys/${action}`, body);
    if (values.out === 'json') {
      io.stdout(JSON.stringify(changed, null, 2) + '\n');
      return 0;
    }
    if (changed.length === 0) {
      io.stdout(`The key glob '${match ?? '*'}' does not match any ${action === 'accept' ? 'unaccepted' : ''} keys.\n`.replace('  ', ' '));
      return 1;
    }
    const verb = action === 'accept' ? 'Accepted' : action === 'reject' ? 'Rejected' : 'Deleted';
    for (const c of changed) io.stdout(`Key for minion ${c.minion} ${verb.toLowerCase()}.\n`);
    return 0;
  },
};
