import { formatDiagnostic, toBrineError } from '@brine/core';
import type { CommandIO } from './command.js';
import { commands } from './commands/index.js';

function usage(): string {
  const lines = ['usage: brine <command> [args]', '', 'commands:'];
  for (const c of commands) lines.push(`  ${c.name.padEnd(10)} ${c.summary}`);
  return lines.join('\n') + '\n';
}

/** The CLI boundary: anything thrown becomes a coded error on stderr and a non-zero exit. */
export async function main(argv: string[], io: CommandIO): Promise<number> {
  const [verb, ...rest] = argv;
  if (!verb || verb === '-h' || verb === '--help' || verb === 'help') {
    io.stdout(usage());
    return verb ? 0 : 2;
  }
  const command = commands.find((c) => c.name === verb);
  if (!command) {
    io.stderr(`brine: unknown command '${verb}'\n${usage()}`);
    return 2;
  }
  try {
    return await command.run(rest, io);
  } catch (err) {
    const e = toBrineError(err);
    if (e.diagnostics.length > 0) {
      for (const d of e.diagnostics) io.stderr(formatDiagnostic(d) + '\n');
    } else {
      io.stderr(`brine ${verb}: ${e.code}: ${e.message}\n`);
    }
    if (e.code === 'BRINE_ERR_CORE_INTERNAL' && process.env.BRINE_DEBUG) io.stderr(`${e.stack}\n`);
    return 1;
  }
}
