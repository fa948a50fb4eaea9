import { existsSync } from 'node:fs';
import { join } from 'node:path';

/** Whether a program is on PATH (tests skip what the host lacks, and say so). */
export function which(program: string): boolean {
  return (process.env.PATH ?? '').split(':').some((d) => d && existsSync(join(d, program)));
}
