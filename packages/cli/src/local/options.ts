import { readFileSync, statSync } from 'node:fs';
import { hostname } from 'node:os';
import { join, resolve } from 'node:path';
import { createRequire } from 'node:module';
import type { TopMergeStrategy } from '@brine/compiler';
import type { Diagnostic, Grains, Pillar } from '@brine/core';
import { cliErrors } from '../errors.js';
import { fromParseError } from '../parse-errors.js';
import { outputOption } from '../output/outputters.js';
import type { OutFormat } from '../output/format.js';
import { parseSaltArgs, type SaltArgs } from '../salt-args.js';
import { parseRoots, withUserPath } from './file-roots.js';
import { localGrains, yamlText } from './grains.js';
import { readMinionConfig, type MinionConfig } from './minion-config.js';
import { commandParams } from './params.js';
import { LOCAL_USAGE } from './usage.js';

// node:util by require: imported as an ES module it loads about 15 more of Node's own modules
// (worker threads among them), a few ms at every `brine local`
const { parseArgs } = createRequire(import.meta.url)('node:util') as typeof import('node:util');

export interface LocalOptions {
  fun: string;
  call: SaltArgs;
  roots: Record<string, string[]>;
  id: string;
  grains: Grains;
  pillar: Pillar;
  /** What rendering the pillar roots reported; an error there fails every compile, as in Salt. */
  pillarDiagnostics: Diagnostic[];
  pillarRoots: Record<string, string[]>;
  /** Top file settings from the minion config. */
  top: { strategy?: TopMergeStrategy; defaultTop?: string; stateTop?: string; nodegroups?: Record<string, string | string[]> };
  /** As given; compiles and state runs show them to templates through the compiler's strictParams. */
  params: Record<string, unknown>;
  out: OutFormat | undefined;
  color: boolean;
  /** Highstate outputter mode: full (default), terse, mixed or changes. */
  stateOutput: 'full' | 'terse' | 'mixed' | 'changes';
  /** The minion's data_dir (config, else the minion's default): cp.cache_file and the grains file. */
  dataDir: string;
}

function readDataFile(what: string, file: string, parse: (text: string) => unknown): Record<string, unknown> {
  let data: unknown;
  try {
    data = parse(readFileSync(file, 'utf8'));
  } catch (e) {
    throw cliErrors.make('BRINE_ERR_CLI_BAD_FILE', { what, file, detail: (e as Error).message });
  }
  if (data === null || data === undefined) return {};
  if (typeof data !== 'object' || Array.isArray(data)) {
    throw cliErrors.make('BRINE_ERR_CLI_BAD_FILE', { what, file, detail: 'it must hold a dictionary' });
  }
  return data as Record<string, unknown>;
}

export async function parseLocalOptions(argv: string[], cwd: string, env: NodeJS.ProcessEnv): Promise<LocalOptions> {
  let parsed;
  try {
    parsed = parseArgs({
      args: argv,
      allowPositionals: true,
      strict: true,
      options: {
        'file-root': { type: 'string', multiple: true },
        'pillar-root': { type: 'string', multiple: true },
        config: { type: 'string', short: 'c' },
        id: { type: 'string' },
        grains: { type: 'string' },
        pillar: { type: 'string' },
        params: { type: 'string', multiple: true },
        out: { type: 'string' },
        'no-color': { type: 'boolean' },
        'state-output': { type: 'string' },
      },
    });
  } catch (e) {
    throw fromParseError(e, LOCAL_USAGE);
  }
  const { values, positionals } = parsed;
  const [fun, ...rest] = positionals;
  if (!fun) throw cliErrors.make('BRINE_ERR_CLI_USAGE', { detail: 'no function given', usage: LOCAL_USAGE });
  // salt-call's names; `text` is the highstate outputter for runs, as for brine run
  const out = values.out === undefined ? undefined : (outputOption(values.out, LOCAL_USAGE, 'highstate', { text: 'highstate' }) as OutFormat);
  const stateOutput = (values['state-output'] ?? 'full') as LocalOptions['stateOutput'];
  if (!['full', 'terse', 'mixed', 'changes'].includes(stateOutput)) {
    throw cliErrors.make('BRINE_ERR_CLI_USAGE', { detail: `unknown --state-output '${stateOutput}' (full, terse, mixed, changes)`, usage: LOCAL_USAGE });
  }
  const config: MinionConfig = values.config ? readMinionConfig(resolve(cwd, values.config)) : {};
  const roots = parseRoots('file', values['file-root'], cwd, config.file_roots);
  const pillarRoots = parseRoots('pillar', values['pillar-root'], cwd, config.pillar_roots);
  const id = values.id ?? config.id ?? hostname();
  const call = parseSaltArgs(rest);
  const grainsFile = values.grains ? resolve(cwd, values.grains) : undefined;
  const dataDir = config.data_dir ?? '/var/lib/brine/minion';
  // the grains the minion's grains.setval persisted, as salt-call --local reads /etc/salt/grains
  // (the execution functions, which read it, are loaded only when there is one)
  const grainsOfMinion = join(dataDir, 'grains');
  const persisted = mayExist(grainsOfMinion) ? (await import('@brine/exec')).readGrainsFile(grainsOfMinion) : {};
  // a data file that is JSON is read without the yaml library where that means the same (data-text.ts)
  const parse = grainsFile || values.pillar ? (await import('./data-text.js')).parseDataText : yamlText;
  const grains = localGrains(id, grainsFile, config.grains, persisted, parse);
  const top = {
    ...(config.top_file_merging_strategy ? { strategy: config.top_file_merging_strategy } : {}),
    ...(config.default_top ? { defaultTop: config.default_top } : {}),
    ...(config.state_top ? { stateTop: config.state_top } : {}),
    ...(config.nodegroups ? { nodegroups: config.nodegroups } : {}),
  };
  // Classic pillar from the pillar roots (rendered like the master does), then `--pillar FILE` over it.
  // Without pillar roots there is nothing to render: the compiler is not even loaded.
  const compiler = Object.keys(pillarRoots).length > 0 || values.pillar ? await import('@brine/compiler') : undefined;
  const classic = compiler?.compilePillar(
    compiler.dirTree(pillarRoots),
    { id, grains },
    {
      ...(config.pillar_merge_lists ? { mergeLists: true } : {}),
      ...(config.pillarenv ? { pillarenv: config.pillarenv } : {}),
      ...(config.nodegroups ? { nodegroups: config.nodegroups } : {}),
    },
  ) ?? { pillar: {}, diagnostics: [] };
  const pillar = values.pillar ? compiler!.mergePillar(classic.pillar, readDataFile('pillar file', resolve(cwd, values.pillar), parse)) : classic.pillar;
  // Params files in order, then `params='{...}'` on the command line (see params.ts).
  const params = commandParams(values.params ?? [], call.kwargs.params, cwd, (detail) => {
    throw cliErrors.make('BRINE_ERR_CLI_USAGE', { detail, usage: LOCAL_USAGE });
  })!;
  return {
    fun,
    call,
    roots,
    id,
    grains,
    pillar,
    // named as paths the user can open (they are relative to a pillar root)
    pillarDiagnostics: classic.diagnostics.map((d) => withUserPath(d, pillarRoots, cwd)),
    pillarRoots,
    top,
    params,
    out,
    color: !values['no-color'] && (!!process.stdout.isTTY || !!env.BRINE_FORCE_COLOR) && !env.NO_COLOR,
    stateOutput,
    dataDir,
  };
}

/** False when `file` is surely not there (a stat error other than "no such file" leaves it to the reader). */
function mayExist(file: string): boolean {
  try {
    return statSync(file, { throwIfNoEntry: false }) !== undefined;
  } catch {
    return true;
  }
}
