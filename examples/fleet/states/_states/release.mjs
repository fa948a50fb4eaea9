// A custom state module (Salt's `_states/`): `release.recorded` keeps a small JSON file that says
// which release of an application a host runs. The master serves this file; minions sync it
// before each state run (or with `saltutil.sync_states`) and load it beside the shipped modules.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';

function current(path) {
  try {
    return JSON.parse(readFileSync(path, 'utf8'));
  } catch {
    return null;
  }
}

export default {
  functions: {
    recorded: {
      args: {
        version: { type: ['string', 'number'], required: true, doc: 'the release deployed' },
        app: { type: 'string', default: 'app' },
      },
      async run(args, ctx) {
        const name = args.name;
        const want = { app: args.app, version: String(args.version) };
        const old = current(name);
        if (old && old.app === want.app && old.version === want.version) {
          return { name, result: true, changes: {}, comment: `Release ${want.version} of ${want.app} is already recorded`, old_state: old, new_state: old };
        }
        const changes = { old: old?.version ?? null, new: want.version };
        if (ctx.test) {
          return { name, result: null, changes, comment: `Release ${want.version} of ${want.app} would be recorded`, old_state: old, new_state: want };
        }
        mkdirSync(dirname(name), { recursive: true });
        writeFileSync(name, JSON.stringify(want) + '\n');
        return { name, result: true, changes, comment: `Recorded release ${want.version} of ${want.app}`, old_state: old, new_state: want };
      },
    },
  },
};
