import { hostname } from 'node:os';
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { formatDiagnostic, type Diagnostic } from '@brine/core';
import type { Command } from '../command.js';
import { cliErrors } from '../errors.js';
import { outputOption, renderData, type Outputter } from '../output/outputters.js';
import { fromParseError } from '../parse-errors.js';
import { parseFileRoots, withUserPath } from '../local/file-roots.js';

export const VALIDATE_USAGE =
  'brine validate <sls>[,<sls>...] [--file-root DIR] [--file-root ENV=DIR] [--saltenv ENV] [--id ID] [--grains FILE] [--out json|yaml|nested|raw|txt|quiet]\n' +
  '       brine validate <sls>[,<sls>...] --minion ID [--saltenv ENV] [--out json|yaml|nested|raw|txt|quiet] [--config MASTER_CONFIG]';

interface ValidateOptions {
  sls: string[];
  env: string;
  roots: Record<string, string[]>;
  id: string;
  grainsFile: string | undefined;
  out: Exclude<Outputter, 'text' | 'highstate'>;
  /** Through the master: render for this minion (its grains and pillar) with the master's tree. */
  minion: string | undefined;
  config: string | undefined;
}

function usage(detail: string): never {
  throw cliErrors.make('BRINE_ERR_CLI_USAGE', { detail, usage: VALIDATE_USAGE });
}

function parseValidateOptions(argv: string[], cwd: string): ValidateOptions {
  let parsed;
  try {
    parsed = parseArgs({
      args: argv,
      allowPositionals: true,
      strict: true,
      options: {
        'file-root': { type: 'string', multiple: true },
        saltenv: { type: 'string' },
        id: { type: 'string' },
        grains: { type: 'string' },
        out: { type: 'string' },
        minion: { type: 'string' },
        config: { type: 'string', short: 'c' },
      },
    });
  } catch (e) {
    throw fromParseError(e, VALIDATE_USAGE);
  }
  const { values, positionals } = parsed;
  const sls = positionals
    .flatMap((p) => p.split(','))
    .map((s) => s.trim())
    .filter(Boolean);
  if (sls.length === 0) usage('no SLS given');
  const out = outputOption(values.out, VALIDATE_USAGE, 'json', { text: 'json', highstate: 'json' }) as ValidateOptions['out'];
  if (values.minion !== undefined) {
    for (const local of ['file-root', 'id', 'grains'] as const) {
      if (values[local] !== undefined) usage(`--${local} is for a local tree; with --minion the master's tree, grains and pillar are used`);
    }
    return { sls, env: values.saltenv ?? 'base', roots: {}, id: values.minion, grainsFile: undefined, out, minion: values.minion, config: values.config };
  }
  const roots = parseFileRoots(values['file-root'], cwd);
  return {
    sls,
    env: values.saltenv ?? 'base',
    roots,
    id: values.id ?? hostname(),
    grainsFile: values.grains ? resolve(cwd, values.grains) : undefined,
    out,
    minion: undefined,
    config: values.config,
  };
}

/**
 * `brine validate`: renders the SLS files with recording params and prints what they use (the
 * report of validateSls, as the seed shows it: 4-space JSON by default). Diagnostics go to
 * stderr; the exit code is 1 when the files do not compile (the report is printed anyway).
 */
export const validateCommand: Command = {
  name: 'validate',
  summary: 'list the params each state of an SLS uses, and those its META does not document',
  usage: VALIDATE_USAGE,
  async run(argv, io) {
    const opts = parseValidateOptions(argv, io.cwd);
    let res: { report: unknown; diagnostics: Diagnostic[]; failed: boolean };
    if (opts.minion !== undefined) {
      // the master renders for the minion (its grains and pillar); files named as on the master
      const { MasterClient, resolveApi } = await import('@brine/master/client');
      const client = new MasterClient(resolveApi(opts.config, io.env));
      res = await client.post('/v1/validate', { minion: opts.minion, sls: opts.sls, saltenv: opts.env });
      for (const d of res.diagnostics) io.stderr(formatDiagnostic(d) + '\n');
    } else {
      // loaded here: rendering needs the compiler, templates and the state modules' signatures
      const [{ dirTree, renderSls, validateSls }, { signatureRegistry }, { registrySchema }, { localGrains }] = await Promise.all([
        import('@brine/compiler'),
        import('@brine/states/lazy'),
        import('../local/compile.js'),
        import('../local/grains.js'),
      ]);
      const grains = localGrains(opts.id, opts.grainsFile);
      res = validateSls(
        { tree: dirTree(opts.roots), minion: { id: opts.id, grains }, render: renderSls, schema: registrySchema(signatureRegistry()) },
        opts.sls,
        opts.env,
      );
      for (const d of res.diagnostics) io.stderr(formatDiagnostic(withUserPath(d, opts.roots, io.cwd)) + '\n');
    }
    io.stdout(renderData(opts.out, res.report));
    return res.failed ? 1 : 0;
  },
};
