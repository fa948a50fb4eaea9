import { formatDiagnostic, toBrineError } from '@brine/core';
import type { CommandIO } from './command.js';
import { allCommands, loadCommand } from './commands/index.js';
import { fromParseError } from './parse-errors.js';
import { BRINE_VERSION } from './version.js';

async function usage(): Promise<string> {
  const lines = ['usage: brine <command> [args]', '', 'commands:'];
  for (const c of await allCommands()) lines.push(`  ${c.name.padEnd(10)} ${c.summary}`);
  return lines.join('\n') + '\n';
}

function helpOf(c: { name: string; summary: string; usage: string }): string {
  return `brine ${c.name}: ${c.summary}\n\nusage: ${c.usage}\n`;
}

/** The CLI boundary: anything thrown becomes a coded error on stderr and a non-zero exit. */
export async function main(argv: string[], io: CommandIO): Promise<number> {
  const [verb, ...rest] = argv;
  if (verb === '--version' || verb === '-V' || verb === 'version') {
    io.stdout(`brine ${BRINE_VERSION} (node ${process.versions.node})\n`);
    return 0;
  }
  if (!verb || verb === '-h' || verb === '--help' || verb === 'help') {
    // `brine help run` is `brine run --help`
    const about = verb === 'help' && rest[0] ? await loadCommand(rest[0]) : undefined;
    io.stdout(about ? helpOf(about) : await usage());
    return verb ? 0 : 2;
  }
  const command = await loadCommand(verb);
  if (!command) {
    io.stderr(`brine: unknown command '${verb}'\n${await usage()}`);
    return 2;
  }
  // every verb answers -h/--help with its usage (arguments after a bare `--` are not flags)
  const flags = rest.indexOf('--') === -1 ? rest : rest.slice(0, rest.indexOf('--'));
  // --no-color and --force-color work on every verb (as salt's): NO_COLOR / colour on a pipe too
  // (the flag --force-color beats the NO_COLOR environment; the flag --no-color beats both)
  if (flags.includes('--force-color')) {
    io = { ...io, env: { ...io.env, BRINE_FORCE_COLOR: '1', NO_COLOR: '' } };
    rest.splice(rest.indexOf('--force-color'), 1);
  }
  if (flags.includes('--no-color')) {
    io = { ...io, env: { ...io.env, NO_COLOR: '1' } };
    rest.splice(rest.indexOf('--no-color'), 1);
  }
  if (flags.includes('-h') || flags.includes('--help')) {
    io.stdout(helpOf(command));
    return 0;
  }
  try {
    return await command.run(rest, io);
  } catch (err) {
    const e = toBrineError(fromParseError(err, command.usage));
    if (e.diagnostics.length > 0) {
      for (const d of e.diagnostics) io.stderr(formatDiagnostic(d) + '\n');
    } else {
      io.stderr(`brine ${verb}: ${e.code}: ${e.message}\n`);
    }
    if (e.code === 'BRINE_ERR_CORE_INTERNAL' && process.env.BRINE_DEBUG) io.stderr(`${e.stack}\n`);
    return 1;
  }
}

/** The CLI on this process's streams and environment (bin.ts, and the startup snapshot's main). */
export async function runMain(argv: string[]): Promise<void> {
  // `brine jobs list | head`: the reader left; the command's output is not wanted any more
  for (const stream of [process.stdout, process.stderr]) {
    stream.on('error', (err: NodeJS.ErrnoException) => {
      if (err.code !== 'EPIPE') throw err;
      process.exit(process.exitCode ?? 0);
    });
  }
  process.exitCode = await main(argv, {
    stdout: (t) => process.stdout.write(t),
    stderr: (t) => process.stderr.write(t),
    cwd: process.cwd(),
    env: process.env,
  });
}
