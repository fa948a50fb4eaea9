import { existsSync } from 'node:fs';
import { join } from 'node:path';

const DIRS = ['/usr/local/sbin', '/usr/local/bin', '/usr/sbin', '/usr/bin', '/sbin', '/bin'];

/** The path of a program in the usual system directories (and PATH), or undefined. */
export function which(program: string): string | undefined {
  const dirs = [...DIRS, ...(process.env.PATH ?? '').split(':').filter(Boolean)];
  for (const d of dirs) {
    const p = join(d, program);
    if (existsSync(p)) return p;
  }
  return undefined;
}

/** Availability from the programs a module needs. */
export function needPrograms(...programs: string[]): { available: boolean; reason?: string } {
  const missing = programs.filter((p) => !which(p));
  return missing.length ? { available: false, reason: `${missing.join(', ')} not found` } : { available: true };
}
