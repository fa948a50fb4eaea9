import type { JobReport } from '@brine/master/client';
import { yamlLib } from '@brine/core';
import type { CommandIO } from '../command.js';
import { didNotReturn, useColor } from './fleet.js';
import { ANSI, formatNested, NO_COLOR } from './highstate.js';
import { renderData } from './outputters.js';

/** One minion's value with Salt's nested outputter: `id:` then the value indented. */
export function formatNestedOf(minion: string, value: unknown, color = false): string {
  return formatNested({ [minion]: value }, 0, color ? ANSI : NO_COLOR).join('\n') + '\n';
}

/** Prints the returns of a job (and the minions that did not return) in the chosen format. */
export function printReport(report: Pick<JobReport, 'returns' | 'missing'>, out: string, io: CommandIO, opts: { whole?: boolean } = {}): void {
  const byMinion: Record<string, unknown> = {};
  for (const [m, r] of Object.entries(report.returns)) byMinion[m] = r.return;
  for (const m of report.missing) byMinion[m.minion] = didNotReturn(m.reason);
  const ids = Object.keys(byMinion).sort();
  // --static: the returns as one document, as salt --static prints them
  const whole = opts.whole && (out === 'json' || out === 'yaml');
  if (whole)
    io.stdout(
      out === 'json'
        ? JSON.stringify(Object.fromEntries(ids.map((id) => [id, byMinion[id]])), null, 4) + '\n'
        : yamlLib().stringify(Object.fromEntries(ids.map((id) => [id, byMinion[id]]))),
    );
  else if (out === 'raw' || out === 'quiet') {
    for (const id of ids) io.stdout(renderData(out, { [id]: byMinion[id] }));
  } else if (out === 'json') {
    for (const id of ids) io.stdout(JSON.stringify({ [id]: byMinion[id] }) + '\n');
  } else if (out === 'yaml') {
    for (const id of ids) io.stdout(yamlLib().stringify({ [id]: byMinion[id] }));
  } else if (out === 'txt') {
    for (const id of ids) {
      const v = byMinion[id];
      io.stdout(`${id}: ${typeof v === 'string' ? v : JSON.stringify(v)}\n`);
    }
  } else {
    const color = useColor(io);
    for (const id of ids) io.stdout(formatNestedOf(id, byMinion[id], color));
  }
}
