import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { CommandRunner } from '@brine/core';

/** The debconf answers as Salt's debconfmod reads and sets them (debconf-utils). */

/** package -> [question, type, value] rows, as debconf-get-selections prints them. */
export async function debconfSelections(cmd: CommandRunner, fetchEmpty = true): Promise<Record<string, Array<[string, string, string]>>> {
  const out = (await cmd.run(['debconf-get-selections'])).stdout;
  const rows: Record<string, Array<[string, string, string]>> = {};
  for (const m of out.matchAll(/^([^#\s]\S+)[\t ]+(\S+)[\t ]+(\S+)[\t ]+([^\n]*)$/gm)) {
    const [, pkg, question, type, value] = m as unknown as [string, string, string, string, string];
    if (fetchEmpty || value) (rows[pkg] ??= []).push([question, type, value]);
  }
  return rows;
}

export async function debconfShow(cmd: CommandRunner, pkg: string): Promise<Array<[string, string, string]> | null> {
  return (await debconfSelections(cmd))[pkg] ?? null;
}

/** One answer through debconf-set-selections (a temp file, as Salt passes it). */
export async function debconfSet(cmd: CommandRunner, pkg: string, question: string, type: string, value: string): Promise<boolean> {
  const dir = mkdtempSync(join(tmpdir(), 'brine-debconf-'));
  try {
    const file = join(dir, 'selections');
    writeFileSync(file, `${pkg} ${question} ${type} ${value}`, { mode: 0o600 });
    await cmd.run(['debconf-set-selections', file]);
    return true;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
