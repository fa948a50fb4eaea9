import { createInterface } from 'node:readline/promises';
import { parseArgs } from 'node:util';
import { globMatch } from '@brine/core';
import { MasterClient, resolveApi } from '@brine/master/client';
import type { Command, CommandIO } from '../command.js';
import { useColor } from '../output/fleet.js';
import { outputOption, renderData } from '../output/outputters.js';
import { cliErrors } from '../errors.js';

interface KeyList {
  accepted: string[];
  pending: string[];
  rejected: string[];
  denied: string[];
}

interface Change {
  minion: string;
  fingerprint: string;
  from: string;
  to: string;
}

interface KeyRow {
  minion: string;
  state: string;
  fingerprint: string;
}

const TITLES: Record<string, string> = { accepted: 'Accepted Keys', pending: 'Unaccepted Keys', rejected: 'Rejected Keys', denied: 'Denied Keys' };

/** `id:  fingerprint` lines under one heading per key state, as salt-key -F prints them. */
function fingerLines(keys: KeyRow[]): string {
  let out = '';
  for (const state of ['accepted', 'denied', 'pending', 'rejected']) {
    const rows = keys.filter((k) => k.state === state);
    if (rows.length > 0) out += `${TITLES[state]}:\n${rows.map((k) => `${k.minion}:  ${k.fingerprint}\n`).join('')}`;
  }
  return out;
}

function keyPalette(on: boolean) {
  const c = (code: string) => (on ? `\x1b[${code}m` : '');
  return {
    green: c('0;32'),
    red: c('0;31'),
    blue: c('0;34'),
    magenta: c('0;35'),
    lightGreen: c('1;32'),
    lightRed: c('1;31'),
    lightBlue: c('1;34'),
    lightMagenta: c('1;35'),
    end: c('0'),
  };
}

type KeyFlags = Record<string, string | boolean | undefined>;

/**
 * salt-key's flags (-L, -A, -a ID, -R, -r ID, -D, -d ID, -F, -f ID) as an action; two of them
 * at once is a usage error, never a quiet choice of one.
 */
function saltKeyAction(v: KeyFlags): { action: string; match?: string; all?: boolean } | undefined {
  const found: Array<{ flag: string; action: string; match?: string; all?: boolean }> = [];
  if (v.list || v['list-all']) found.push({ flag: '-L', action: 'list' });
  if (typeof v['list-state'] === 'string') found.push({ flag: '-l', action: 'list', match: v['list-state'] });
  for (const [name, short, action] of [
    ['accept', 'a', 'accept'],
    ['reject', 'r', 'reject'],
    ['delete', 'd', 'delete'],
    ['finger', 'f', 'finger'],
  ] as const) {
    if (typeof v[name] === 'string') found.push({ flag: `-${short}`, action, match: v[name] as string });
    if (v[`${name}-all`]) found.push({ flag: `-${short.toUpperCase()}`, action, ...(action === 'finger' ? {} : { all: true }) });
  }
  if (found.length > 1) {
    throw cliErrors.make('BRINE_ERR_CLI_USAGE', { detail: `choose one key action, not ${found.map((f) => f.flag).join(' and ')}`, usage: KEY_USAGE });
  }
  return found[0];
}

const KEY_USAGE =
  'brine key list|accept|reject|delete|finger [ID_GLOB|--all] [--yes] [--include-rejected] [--include-accepted] [--include-denied] [--out key|text|json|yaml|nested|raw|txt|quiet] [--config MASTER_CONFIG]\n' +
  '       brine key -L | -l acc|un|rej|den|all | -A | -a ID | -R | -r ID | -D | -d ID | -F | -f ID  [-y]   (salt-key flags)';

/** salt-key -l's names of the key states (`pre`, `un` and `unaccepted` are the pending keys). */
const LIST_STATES: Record<string, Array<keyof KeyList>> = {
  acc: ['accepted'],
  accepted: ['accepted'],
  un: ['pending'],
  unaccepted: ['pending'],
  pre: ['pending'],
  rej: ['rejected'],
  rejected: ['rejected'],
  den: ['denied'],
  denied: ['denied'],
  all: ['accepted', 'denied', 'pending', 'rejected'],
};

const DONE: Record<string, string> = { accept: 'accepted', reject: 'rejected', delete: 'deleted' };

/** The key states an action moves keys from (the master's keys route decides the same way). */
function keyActionFrom(action: string, v: KeyFlags): string[] {
  if (action === 'delete') return ['pending', 'accepted', 'rejected', 'denied'];
  const extra = action === 'accept' ? ['rejected', 'denied'] : ['accepted', 'denied'];
  return ['pending', ...extra.filter((s) => v[`include-${s}`])];
}

/** salt-key's listing of the keys by state. */
function printKeyList(keys: KeyList, io: CommandIO, states: Array<keyof KeyList> = LIST_STATES.all!): void {
  // salt-key's colours: light headings, keys in their state's colour
  const c = keyPalette(useColor(io));
  const section = (state: keyof KeyList, title: string, color: string, heading: string) => {
    if (states.includes(state)) io.stdout(`${heading}${title}:${c.end}\n${keys[state].map((i) => `${color}${i}${c.end}\n`).join('')}`);
  };
  section('accepted', 'Accepted Keys', c.green, c.lightGreen);
  section('denied', 'Denied Keys', c.magenta, c.lightMagenta);
  section('pending', 'Unaccepted Keys', c.red, c.lightRed);
  section('rejected', 'Rejected Keys', c.blue, c.lightBlue);
}

/** Asks on the terminal, after showing the fingerprints of the keys the action would change. */
async function confirmed(
  client: MasterClient,
  action: 'accept' | 'reject' | 'delete',
  values: KeyFlags,
  match: string | undefined,
  io: CommandIO,
): Promise<boolean> {
  // the fingerprints to compare with the minion's own (its key_pending log line) before saying yes
  const from = keyActionFrom(action, values);
  const { keys } = await client.get<{ keys: KeyRow[] }>('/v1/keys/finger');
  const which = keys.filter((k) => from.includes(k.state) && (values.all || globMatch(k.minion, match!)));
  io.stderr(`The following keys are going to be ${DONE[action]}:\n${fingerLines(which)}`);
  const rl = createInterface({ input: process.stdin, output: process.stderr });
  const answer = await rl.question(`${action} ${values.all ? 'all matching keys' : `keys matching '${match}'`}? [n/Y] `);
  rl.close();
  return answer.trim() === '' || /^y(es)?$/i.test(answer.trim());
}

/** `brine key`: salt-key. */
export const keyCommand: Command = {
  name: 'key',
  summary: 'manage minion keys: list, accept, reject, delete, finger',
  usage: KEY_USAGE,
  async run(argv, io) {
    const { values, positionals } = parseArgs({
      args: argv,
      allowPositionals: true,
      options: {
        config: { type: 'string', short: 'c' },
        all: { type: 'boolean' },
        yes: { type: 'boolean', short: 'y' },
        'include-rejected': { type: 'boolean' },
        'include-accepted': { type: 'boolean' },
        'include-denied': { type: 'boolean' },
        out: { type: 'string' },
        // salt-key's flags
        list: { type: 'boolean', short: 'L' },
        'list-all': { type: 'boolean' },
        'list-state': { type: 'string', short: 'l' },
        accept: { type: 'string', short: 'a' },
        'accept-all': { type: 'boolean', short: 'A' },
        reject: { type: 'string', short: 'r' },
        'reject-all': { type: 'boolean', short: 'R' },
        delete: { type: 'string', short: 'd' },
        'delete-all': { type: 'boolean', short: 'D' },
        finger: { type: 'string', short: 'f' },
        'finger-all': { type: 'boolean', short: 'F' },
      },
    });
    const salt = saltKeyAction(values);
    if (salt && positionals.length > 0) {
      throw cliErrors.make('BRINE_ERR_CLI_USAGE', {
        detail: `salt-key style flags and the action '${positionals[0]}' cannot be mixed: use one or the other`,
        usage: this.usage,
      });
    }
    const [action = 'list', match] = salt ? [salt.action, salt.match] : positionals;
    const out = outputOption(values.out, KEY_USAGE, 'text', { key: 'text', highstate: 'text' });
    const data = out === 'text' || out === 'highstate' ? undefined : out;
    if (salt?.all) values.all = true;
    const client = new MasterClient(resolveApi(values.config, io.env));
    if (action === 'list') {
      const states = salt?.match !== undefined ? LIST_STATES[salt.match] : LIST_STATES.all!;
      if (!states)
        throw cliErrors.make('BRINE_ERR_CLI_USAGE', {
          detail: `-l takes one of ${Object.keys(LIST_STATES).join(', ')}, not '${salt?.match}'`,
          usage: KEY_USAGE,
        });
      const keys = await client.get<KeyList>('/v1/keys');
      if (data) {
        io.stdout(
          renderData(
            data,
            Object.fromEntries((['accepted', 'pending', 'rejected', 'denied'] as const).filter((st) => states.includes(st)).map((st) => [st, keys[st]])),
          ),
        );
        return 0;
      }
      printKeyList(keys, io, states);
      return 0;
    }
    if (action === 'finger') {
      const f = await client.get<{ master: string; keys: KeyRow[] }>('/v1/keys/finger');
      if (data) {
        io.stdout(renderData(data, f));
        return 0;
      }
      io.stdout(`Local Keys:\nmaster.crt:  ${f.master}\n`);
      io.stdout(fingerLines(f.keys.filter((k) => !match || globMatch(k.minion, match))));
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
    if (!values.yes && process.stdin.isTTY && !(await confirmed(client, action, values, match, io))) return 1;
    const body = {
      ...(values.all ? { all: true } : { match }),
      ...(values['include-rejected'] ? { include_rejected: true } : {}),
      ...(values['include-accepted'] ? { include_accepted: true } : {}),
      ...(values['include-denied'] ? { include_denied: true } : {}),
    };
    const { changed } = await client.post<{ changed: Change[] }>(`/v1/keys/${action}`, body);
    if (data) {
      io.stdout(renderData(data, changed));
      return 0;
    }
    if (changed.length === 0) {
      io.stdout(`The key glob '${match ?? '*'}' does not match any ${action === 'accept' ? 'unaccepted' : ''} keys.\n`.replace('  ', ' '));
      return 1;
    }
    // salt-key's sentence, then the fingerprint of the key now trusted, to check against the minion's
    for (const c of changed) io.stdout(`Key for minion ${c.minion} ${DONE[action]}.${action === 'accept' ? ` Fingerprint: ${c.fingerprint}` : ''}\n`);
    return 0;
  },
};
