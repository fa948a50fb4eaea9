import type { CommandIO } from '../command.js';

/** One line of `brine minion --check` or `brine doctor` (the shape @brine/minion's CheckStep has). */
export interface CheckLine {
  step: string;
  status: 'ok' | 'WARN' | 'FAIL';
  detail: string;
  hint?: string;
}

/** Prints a step as it ends: `step  ok|WARN|FAIL  detail`, then its hint indented. */
export function printCheckStep(io: CommandIO, s: CheckLine): void {
  const line = `${s.step.padEnd(12)} ${s.status.padEnd(4)}  ${s.detail}\n`;
  const hint = s.hint ? `${' '.repeat(19)}hint: ${s.hint}\n` : '';
  io.stdout(line + hint);
}
